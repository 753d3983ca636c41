package fetch_test

import (
	"context"
	"errors"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

var _ = Describe("Chart from an OCI registry", func() {
	ctx := context.Background()

	Context("without authentication", Ordered, func() {
		var reg *ociRegistry

		BeforeAll(func() {
			reg = newOCIRegistry("", "")
			for _, v := range []string{"1.0.0", "1.1.0", "2.0.0", "2.1.0-rc.1", "1.2.3+build.1"} {
				reg.push("web", v)
			}
		})

		It("takes the latest stable version when none is asked for", func() {
			f, _ := newFetcher()
			got, err := f.Chart(ctx, fetch.ChartRequest{Repository: reg.repository(), Name: "web", Insecure: true})
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Revision).To(Equal("2.0.0"))
			Expect(got.URL).To(Equal(reg.Host + "/charts/web:2.0.0"))
			Expect(got.Digest).To(HavePrefix("sha256:"))
			Expect(chartVersionIn(got.Dir)).To(Equal("2.0.0"))
		})

		It("takes the newest version a constraint admits, build metadata included", func() {
			f, _ := newFetcher()
			for constraint, want := range map[string]string{"~1.1": "1.1.0", "^1": "1.2.3+build.1", "1.2.3+build.1": "1.2.3+build.1", ">=2.1.0-0": "2.1.0-rc.1"} {
				got, err := f.Chart(ctx, fetch.ChartRequest{Repository: reg.repository() + "/", Name: "web", Version: constraint, Insecure: true})
				Expect(err).NotTo(HaveOccurred(), constraint)
				Expect(got.Revision).To(Equal(want), constraint)
				Expect(chartVersionIn(got.Dir)).To(Equal(want), constraint)
			}
		})

		It("lists the tags when no version matches", func() {
			f, _ := newFetcher()
			_, err := f.Chart(ctx, fetch.ChartRequest{Repository: reg.repository(), Name: "web", Version: "9.x", Insecure: true})
			var notFound *fetch.VersionNotFoundError
			Expect(errors.As(err, &notFound)).To(BeTrue(), "%v", err)
			Expect(err).To(MatchError(`chart web: no version matches "9.x" in ` + reg.repository() +
				"; available: 2.1.0-rc.1, 2.0.0, 1.2.3+build.1, 1.1.0, 1.0.0"))
		})

		It("says when the registry has no such chart", func() {
			f, _ := newFetcher()
			_, err := f.Chart(ctx, fetch.ChartRequest{Repository: reg.repository(), Name: "nope", Insecure: true})
			var notFound *fetch.ChartNotFoundError
			Expect(errors.As(err, &notFound)).To(BeTrue(), "%v", err)
			Expect(err).To(MatchError("chart nope not found in " + reg.repository()))
		})

		It("pulls an unchanged chart once; within MaxAge it asks the registry nothing", func() {
			f, _ := newFetcher()
			before := reg.requests.Count("")
			blobsBefore := reg.requests.Count("/blobs/")
			first, err := f.Chart(ctx, fetch.ChartRequest{Repository: reg.repository(), Name: "web", Version: "1.0.0", Insecure: true})
			Expect(err).NotTo(HaveOccurred())
			Expect(reg.requests.Count("/blobs/")).To(BeNumerically(">", blobsBefore))

			blobsBefore = reg.requests.Count("/blobs/")
			second, err := f.Chart(ctx, fetch.ChartRequest{Repository: reg.repository(), Name: "web", Version: "1.0.0", Insecure: true, MaxAge: time.Hour})
			Expect(err).NotTo(HaveOccurred())
			Expect(second).To(Equal(first))
			Expect(reg.requests.Count("/blobs/")).To(Equal(blobsBefore)) // tags and the manifest's digest asked again, no pull

			asked := reg.requests.Count("")
			Expect(asked).To(BeNumerically(">", before))
			for range 3 {
				third, err := f.Chart(ctx, fetch.ChartRequest{Repository: reg.repository(), Name: "web", Version: "~1.0", Insecure: true, MaxAge: time.Hour})
				Expect(err).NotTo(HaveOccurred())
				Expect(third).To(Equal(first))
			}
			Expect(reg.requests.Count("")).To(Equal(asked))
		})

		It("pulls a chart once for concurrent fetches", func() {
			f, _ := newFetcher()
			blobsBefore := reg.requests.Count("/blobs/")
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					defer GinkgoRecover()
					_, err := f.Chart(ctx, fetch.ChartRequest{Repository: reg.repository(), Name: "web", Version: "1.1.0", Insecure: true, MaxAge: time.Hour})
					Expect(err).NotTo(HaveOccurred())
				})
			}
			wg.Wait()
			Expect(reg.requests.Count("/blobs/") - blobsBefore).To(Equal(2)) // the config and the chart layer
		})

		It("says an unreachable registry is transient", func() {
			f, _ := newFetcher()
			gone := newOCIRegistry("", "")
			gone.Close()
			_, err := f.Chart(ctx, fetch.ChartRequest{Repository: gone.repository(), Name: "web", Insecure: true})
			Expect(err).To(MatchError(ContainSubstring("listing tags of oci://" + gone.Host + "/charts/web: ")))
			Expect(fetch.IsTransient(err)).To(BeTrue(), "%v", err)
		})
	})

	Context("with htpasswd authentication", Ordered, func() {
		var reg *ociRegistry

		BeforeAll(func() {
			reg = newOCIRegistry("pusher", "registry-pw")
			reg.push("web", "1.0.0")
			reg.push("web", "1.1.0")
		})

		It("pulls with the right login", func() {
			f, _ := newFetcher()
			got, err := f.Chart(ctx, fetch.ChartRequest{Repository: reg.repository(), Name: "web", Insecure: true,
				Credentials: &fetch.Credentials{Username: "pusher", Password: "registry-pw"}})
			Expect(err).NotTo(HaveOccurred())
			Expect(chartVersionIn(got.Dir)).To(Equal("1.1.0"))
		})

		It("says authentication failed with a wrong login or none, without showing the password", func() {
			f, _ := newFetcher()
			_, err := f.Chart(ctx, fetch.ChartRequest{Repository: reg.repository(), Name: "web", Insecure: true,
				Credentials: &fetch.Credentials{Username: "pusher", Password: "wrong-pw"}})
			var authErr *fetch.AuthError
			Expect(errors.As(err, &authErr)).To(BeTrue(), "%v", err)
			Expect(err).To(MatchError("authentication failed for oci://" + reg.Host + "/charts/web: HTTP 401 Unauthorized"))
			Expect(err.Error()).NotTo(ContainSubstring("wrong-pw"))
			Expect(fetch.IsTransient(err)).To(BeFalse())

			_, err = f.Chart(ctx, fetch.ChartRequest{Repository: reg.repository(), Name: "web", Insecure: true})
			Expect(errors.As(err, &authErr)).To(BeTrue(), "%v", err)
			Expect(authErr.Anonymous).To(BeTrue())
		})
	})
})
