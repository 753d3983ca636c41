package dependency_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/httpcount"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/dependency"
	"github.com/wavekit-dev/wavekit/pkg/fetch/verify"
)

// dependsOn is a parent chart's Chart.yaml with one dependency.
func dependsOn(name, version, repository string) string {
	return fmt.Sprintf("apiVersion: v2\nname: parent\nversion: 1.0.0\ndependencies:\n  - name: %s\n    version: %q\n    repository: %q\n", name, version, repository)
}

var _ = Describe("a dependency that cannot be brought", func() {
	DescribeTable("is an error that says which and why",
		func(chartYAML func() string, check func(error)) {
			root, dir := source(chartYAML())
			res, err := resolve(newResolver(), plainRegistry(), dir, root, nil)
			Expect(err).To(HaveOccurred())
			Expect(res.Chart).To(BeNil())
			check(err)
		},
		Entry("a repository that does not answer",
			func() string { return dependsOn("web", "^1", "http://127.0.0.1:1") },
			func(err error) {
				Expect(fetch.IsTransient(err)).To(BeTrue(), "%v", err)
				Expect(err).To(MatchError(HavePrefix("dependency web from http://127.0.0.1:1: ")))
			}),
		Entry("a version that no release matches",
			func() string { return dependsOn("web", "^3", repo.URL) },
			func(err error) {
				var notFound *fetch.VersionNotFoundError
				Expect(errors.As(err, &notFound)).To(BeTrue(), "%v", err)
				Expect(err).To(MatchError(ContainSubstring(`no version matches "^3"`)))
				Expect(err).To(MatchError(ContainSubstring("available: 2.0.0, 1.1.0, 1.0.0")))
			}),
		Entry("a file:// path that leaves the source",
			func() string { return dependsOn("common", "0.1.0", "file://../../..") },
			func(err error) {
				var local *dependency.LocalPathError
				Expect(errors.As(err, &local)).To(BeTrue(), "%v", err)
				Expect(err).To(MatchError(ContainSubstring("leaves the source it comes with")))
			}),
		Entry("a file:// path that holds another chart",
			func() string { return dependsOn("other", "0.1.0", "file://../common") },
			func(err error) {
				Expect(err).To(MatchError("dependency other: file://../common holds chart common, not other"))
			}),
		Entry("a repository name no repository has",
			func() string { return dependsOn("web", "^1", "@stable") },
			func(err error) {
				var ref *dependency.ReferenceError
				Expect(errors.As(err, &ref)).To(BeTrue(), "%v", err)
				Expect(err).To(MatchError(`dependency web: repository "@stable": no repository is named stable in the repositories given`))
			}),
		Entry("no repository, and not in charts/",
			func() string { return dependsOn("web", "^1", "") },
			func(err error) {
				Expect(err).To(MatchError("dependency web: Chart.yaml gives it no repository and charts/ does not hold it"))
			}),
		Entry("a repository that is no URL",
			func() string { return dependsOn("web", "^1", "stable") },
			func(err error) {
				Expect(err).To(MatchError(ContainSubstring("want https://, http://, oci://, file://, @name or alias:name")))
			}),
	)

	It("maps @name and alias:name to the repository of that name", func() {
		access := dependency.Access{MaxAge: time.Hour, Repositories: func(context.Context) (dependency.Repositories, error) {
			return dependency.Repositories{{Name: "local", URL: repo.URL}}, nil
		}}
		for _, ref := range []string{"@local", "alias:local"} {
			root, dir := source(dependsOn("web", "^1", ref))
			res, err := resolve(newResolver(), access, dir, root, nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(versions(res)).To(Equal([]string{"web 1.1.0 " + repo.URL}))
		}
	})

	It("is refused before any request when the allow-list refuses its URL", func() {
		root, dir := source(parentChartYAML())
		registryRequests.Reset()
		access := plainRegistry()
		access.Allow = func(repository, name string) error {
			if strings.HasPrefix(repository, "oci://") {
				return fmt.Errorf("%s/%s is not an allowed source", repository, name)
			}
			return nil
		}
		_, err := resolve(newResolver(), access, dir, root, nil)
		Expect(err).To(MatchError(registry.Repository("charts") + "/db is not an allowed source"))
		Expect(registryRequests.Count("")).To(BeZero())
	})

	It("is refused when its archive is over the size limit", func() {
		big, err := localrepo.NewRepository()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(big.Close)
		noise := make([]byte, 48<<10)
		_, _ = rand.Read(noise)
		chart := greeter("web", "1.0.0")
		chart.Values["noise"] = base64.StdEncoding.EncodeToString(noise)
		Expect(big.Add(chart)).To(Succeed())

		root, dir := source(dependsOn("web", "^1", big.URL))
		_, err = resolve(newResolver(fetch.WithMaxSize(16<<10)), plainRegistry(), dir, root, nil)
		var tooBig *fetch.SizeLimitError
		Expect(errors.As(err, &tooBig)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(ContainSubstring("web-1.0.0.tgz exceeds the limit of 16 KiB")))
	})
})

var _ = Describe("the credentials of a repository", func() {
	It("are used for the identity they are given to, and no other", func() {
		requests := httpcount.New()
		private, err := localrepo.StartRepository(localrepo.RepositoryOptions{Username: "reader", Password: "s3cret", Wrap: requests.Wrap})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(private.Close)
		Expect(private.Add(greeter("web", "1.0.0"))).To(Succeed())
		root, dir := source(dependsOn("web", "^1", private.URL+"/"))

		r := newResolver()
		withLogin := dependency.Access{Identity: "team-a", MaxAge: time.Hour, Repositories: func(context.Context) (dependency.Repositories, error) {
			return dependency.Repositories{{URL: private.URL, Credentials: &fetch.Credentials{Username: "reader", Password: "s3cret"}}}, nil
		}}
		res, err := resolve(r, withLogin, dir, root, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(versions(res)).To(Equal([]string{"web 1.0.0 " + private.URL + "/"}))

		_, err = resolve(r, dependency.Access{Identity: "team-b", MaxAge: time.Hour}, dir, root, nil)
		var auth *fetch.AuthError
		Expect(errors.As(err, &auth)).To(BeTrue(), "%v", err)
		Expect(auth.Anonymous).To(BeTrue())
		Expect(err.Error()).NotTo(ContainSubstring("s3cret"))
	})
})

var _ = Describe("verifying dependencies", func() {
	It("takes a signed chart and refuses an unsigned one, with cosign", func() {
		signer, err := localregistry.NewSigner()
		Expect(err).NotTo(HaveOccurred())
		Expect(registry.Push("signed", greeter("db", "0.1.0"))).To(Succeed())
		Expect(registry.SignBundle(context.Background(), "signed", "db", "0.1.0", signer)).To(Succeed())
		Expect(registry.Push("unsigned", greeter("db", "0.1.0"))).To(Succeed())
		access := plainRegistry()
		access.Verifier = func(context.Context, string) (fetch.Verifier, error) {
			return verify.NewCosign(map[string][]byte{"cosign.pub": signer.PublicKeyPEM()}, nil)
		}

		root, dir := source(dependsOn("db", "0.1.0", registry.Repository("signed")))
		res, err := resolve(newResolver(), access, dir, root, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Dependencies[0].Verified).To(ContainSubstring("cosign.pub"))

		root, dir = source(dependsOn("db", "0.1.0", registry.Repository("unsigned")))
		_, err = resolve(newResolver(), access, dir, root, nil)
		var failed *fetch.VerificationError
		Expect(errors.As(err, &failed)).To(BeTrue(), "%v", err)
	})
})
