package fetch_test

import (
	"context"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

var _ = Describe("Chart from a Helm repository", func() {
	var (
		ctx    context.Context
		charts map[string][]string
	)

	BeforeEach(func() {
		ctx = context.Background()
		charts = map[string][]string{
			"web": {"0.1.0", "0.2.0", "1.0.0", "1.1.0", "1.2.0", "2.0.0", "2.1.0-rc.1"},
			"db":  {"3.0.0"},
		}
	})

	It("takes the latest stable version when none is asked for", func() {
		r := newHelmRepo(repoOptions{}, charts)
		f, _ := newFetcher()
		got, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web"})
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Revision).To(Equal("2.0.0"))
		Expect(chartVersionIn(got.Dir)).To(Equal("2.0.0"))
		Expect(got.URL).To(Equal(r.URL + "/web-2.0.0.tgz"))
		archive, err := os.ReadFile(filepath.Join(r.dir, "web-2.0.0.tgz"))
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Digest).To(Equal(sha256Of(archive)))
	})

	It("takes an exact version, a pre-release included", func() {
		r := newHelmRepo(repoOptions{}, charts)
		f, _ := newFetcher()
		for _, v := range []string{"1.1.0", "2.1.0-rc.1"} {
			got, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL + "/", Name: "web", Version: v})
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Revision).To(Equal(v))
			Expect(chartVersionIn(got.Dir)).To(Equal(v))
		}
	})

	It("takes the newest version a constraint admits", func() {
		r := newHelmRepo(repoOptions{}, charts)
		f, _ := newFetcher()
		for constraint, want := range map[string]string{"^1.0": "1.2.0", ">=0.1 <1": "0.2.0", "~1.1": "1.1.0", ">=2.1.0-0": "2.1.0-rc.1"} {
			got, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web", Version: constraint})
			Expect(err).NotTo(HaveOccurred(), constraint)
			Expect(got.Revision).To(Equal(want), constraint)
		}
	})

	It("lists the available versions, newest first, when none matches", func() {
		r := newHelmRepo(repoOptions{}, charts)
		f, _ := newFetcher()
		_, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web", Version: "9.x"})
		var notFound *fetch.VersionNotFoundError
		Expect(errors.As(err, &notFound)).To(BeTrue(), "%v", err)
		Expect(notFound.Available).To(HaveLen(7))
		Expect(err).To(MatchError(`chart web: no version matches "9.x" in ` + r.URL +
			"; available: 2.1.0-rc.1, 2.0.0, 1.2.0, 1.1.0, 1.0.0 and 2 more"))
		Expect(fetch.IsTransient(err)).To(BeFalse())
	})

	It("says when a chart has no stable version", func() {
		r := newHelmRepo(repoOptions{}, map[string][]string{"beta": {"0.1.0-alpha.1"}})
		f, _ := newFetcher()
		_, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "beta"})
		Expect(err).To(MatchError("chart beta: no stable version in " + r.URL + "; available: 0.1.0-alpha.1"))
	})

	It("refuses an invalid constraint", func() {
		r := newHelmRepo(repoOptions{}, charts)
		f, _ := newFetcher()
		_, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web", Version: "not a version!"})
		Expect(err).To(MatchError(ContainSubstring(`chart web: invalid version constraint "not a version!"`)))
	})

	It("says when the index has no chart of that name", func() {
		r := newHelmRepo(repoOptions{}, charts)
		f, _ := newFetcher()
		_, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "nope"})
		var notFound *fetch.ChartNotFoundError
		Expect(errors.As(err, &notFound)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError("chart nope not found in " + r.URL))
	})

	It("says an unreachable repository is transient, naming the URL", func() {
		r := newHelmRepo(repoOptions{}, charts)
		r.Close()
		f, _ := newFetcher()
		_, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web"})
		Expect(err).To(MatchError(ContainSubstring("fetching " + r.URL + "/index.yaml: ")))
		Expect(fetch.IsTransient(err)).To(BeTrue(), "%v", err)
	})

	It("tells a server error (transient) from a missing index (not)", func() {
		status := http.StatusServiceUnavailable
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }))
		DeferCleanup(srv.Close)
		f, _ := newFetcher()
		_, err := f.Chart(ctx, fetch.ChartRequest{Repository: srv.URL, Name: "web"})
		Expect(err).To(MatchError("fetching " + srv.URL + "/index.yaml: HTTP 503 Service Unavailable"))
		Expect(fetch.IsTransient(err)).To(BeTrue())

		status = http.StatusNotFound
		_, err = f.Chart(ctx, fetch.ChartRequest{Repository: srv.URL, Name: "web"})
		var httpErr *fetch.HTTPError
		Expect(errors.As(err, &httpErr)).To(BeTrue())
		Expect(httpErr.StatusCode).To(Equal(http.StatusNotFound))
		Expect(fetch.IsTransient(err)).To(BeFalse())
	})

	It("logs in with basic auth, and says when the login is refused without showing the password", func() {
		r := newHelmRepo(repoOptions{username: "reader", password: "s3cret-pw"}, charts)
		f, _ := newFetcher()
		got, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web", Credentials: &fetch.Credentials{Username: "reader", Password: "s3cret-pw"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(chartVersionIn(got.Dir)).To(Equal("2.0.0"))

		_, err = f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web", Credentials: &fetch.Credentials{Username: "reader", Password: "wrong-pw"}})
		var authErr *fetch.AuthError
		Expect(errors.As(err, &authErr)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError("authentication failed for " + r.URL + "/index.yaml: HTTP 401 Unauthorized"))
		Expect(err.Error()).NotTo(ContainSubstring("wrong-pw"))
		Expect(fetch.IsTransient(err)).To(BeFalse())

		_, err = f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web"})
		Expect(err).To(MatchError(HaveSuffix("HTTP 401 Unauthorized (no credentials given)")))
	})

	It("trusts the CA given with the credentials, and only then", func() {
		r := newHelmRepo(repoOptions{tls: true}, charts)
		f, _ := newFetcher()
		_, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web"})
		Expect(err).To(MatchError(ContainSubstring("certificate")))
		Expect(fetch.IsTransient(err)).To(BeFalse(), "%v", err)

		ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate().Raw})
		got, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web", Version: "1.0.0", Credentials: &fetch.Credentials{CA: ca}})
		Expect(err).NotTo(HaveOccurred())
		Expect(chartVersionIn(got.Dir)).To(Equal("1.0.0"))
	})

	It("sends a bearer token instead of a login", func() {
		r := newHelmRepo(repoOptions{token: "t0ken-never-printed"}, charts)
		f, _ := newFetcher()
		got, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web", Credentials: &fetch.Credentials{Token: "t0ken-never-printed"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(chartVersionIn(got.Dir)).To(Equal("2.0.0"))
		_, err = f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web", Credentials: &fetch.Credentials{Token: "wrong"}})
		Expect(err).To(MatchError("authentication failed for " + r.URL + "/index.yaml: HTTP 401 Unauthorized"))
	})

	It("presents the client certificate given with the credentials, and only then", func() {
		certPEM, keyPEM, pool := clientCertificate()
		r := newHelmRepo(repoOptions{tls: true, clientCA: pool}, charts)
		ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate().Raw})
		f, _ := newFetcher()
		_, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web", Credentials: &fetch.Credentials{CA: ca}})
		Expect(err).To(HaveOccurred(), "no client certificate")
		got, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web", Version: "1.0.0",
			Credentials: &fetch.Credentials{CA: ca, CertPEM: certPEM, KeyPEM: keyPEM}})
		Expect(err).NotTo(HaveOccurred())
		Expect(chartVersionIn(got.Dir)).To(Equal("1.0.0"))
		_, err = f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web", Credentials: &fetch.Credentials{CA: ca, CertPEM: certPEM}})
		Expect(err).To(MatchError(ContainSubstring("the client certificate and key")))
	})

	It("refuses an archive that does not match the index's digest, and keeps nothing of it", func() {
		r := newHelmRepo(repoOptions{}, charts)
		tampered := packageChart(GinkgoT().TempDir(), "web", "2.0.0", "tampered")
		data, err := os.ReadFile(tampered)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(r.dir, "web-2.0.0.tgz"), data, 0o644)).To(Succeed())

		cacheDir := GinkgoT().TempDir()
		cache, err := fetch.NewCache(cacheDir, 1<<30)
		Expect(err).NotTo(HaveOccurred())
		f := fetch.NewFetcher(cache)
		_, err = f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web"})
		var mismatch *fetch.DigestMismatchError
		Expect(errors.As(err, &mismatch)).To(BeTrue(), "%v", err)
		Expect(mismatch.Got).To(Equal(sha256Of(data)))
		Expect(err).To(MatchError(HavePrefix("digest mismatch for " + r.URL + "/web-2.0.0.tgz: want sha256:")))
		Expect(cacheEntries(cacheDir)).To(BeEmpty())
		Expect(os.ReadDir(cacheDir)).To(BeEmpty())
		entries, _ := cache.Stats()
		Expect(entries).To(BeZero())
	})

	It("does not download an unchanged chart again, and within MaxAge not the index either", func() {
		r := newHelmRepo(repoOptions{}, charts)
		f, _ := newFetcher()
		first, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web"})
		Expect(err).NotTo(HaveOccurred())
		second, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web"})
		Expect(err).NotTo(HaveOccurred())
		Expect(second).To(Equal(first))
		Expect(r.requests.Count("/index.yaml")).To(Equal(2))
		Expect(r.requests.Count(".tgz")).To(Equal(1))

		for range 3 { // the index the last call fetched is younger than an hour
			third, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web", Version: "^2", MaxAge: time.Hour})
			Expect(err).NotTo(HaveOccurred())
			Expect(third).To(Equal(first))
		}
		Expect(r.requests.Count("")).To(Equal(3))
	})

	It("does not download an unchanged chart again when the index gives no digest", func() {
		r := newHelmRepo(repoOptions{noDigest: true}, charts)
		f, _ := newFetcher()
		first, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web"})
		Expect(err).NotTo(HaveOccurred())
		archive, err := os.ReadFile(filepath.Join(r.dir, "web-2.0.0.tgz"))
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Digest).To(Equal(sha256Of(archive)))
		second, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web"})
		Expect(err).NotTo(HaveOccurred())
		Expect(second).To(Equal(first))
		Expect(r.requests.Count("/index.yaml")).To(Equal(2))
		Expect(r.requests.Count(".tgz")).To(Equal(1))
	})

	It("keeps a chart apart from the same archive fetched as an artifact", func() {
		r := newHelmRepo(repoOptions{}, charts)
		f, _ := newFetcher()
		chart, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "web"})
		Expect(err).NotTo(HaveOccurred())
		artifact, err := f.Artifact(ctx, fetch.ArtifactRequest{URL: chart.URL, Digest: chart.Digest})
		Expect(err).NotTo(HaveOccurred())
		Expect(filepath.Join(chart.Dir, "Chart.yaml")).To(BeARegularFile())
		Expect(filepath.Join(artifact.Dir, "web", "Chart.yaml")).To(BeARegularFile())
	})

	It("downloads a chart once for concurrent fetches", func() {
		r := newHelmRepo(repoOptions{}, charts)
		f, _ := newFetcher()
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				defer GinkgoRecover()
				_, err := f.Chart(ctx, fetch.ChartRequest{Repository: r.URL, Name: "db", MaxAge: time.Hour})
				Expect(err).NotTo(HaveOccurred())
			})
		}
		wg.Wait()
		Expect(r.requests.Count(".tgz")).To(Equal(1))
		Expect(r.requests.Count("/index.yaml")).To(Equal(1))
	})

	It("refuses a repository URL it cannot speak to", func() {
		f, _ := newFetcher()
		_, err := f.Chart(ctx, fetch.ChartRequest{Repository: "ftp://example.com/charts", Name: "web"})
		Expect(err).To(MatchError(`chart web: repository "ftp://example.com/charts": want an https://, http:// or oci:// URL`))
		_, err = f.Chart(ctx, fetch.ChartRequest{Repository: "https://example.com", Name: "../web"})
		Expect(err).To(MatchError(`chart name "../web": want a plain name`))
	})
})
