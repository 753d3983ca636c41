package dependency_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/httpcount"
	"github.com/wavekit-dev/wavekit/pkg/fetch/dependency"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// versions lists what a resolution used, "path version repository".
func versions(res dependency.Result) []string {
	var out []string
	for _, d := range res.Dependencies {
		out = append(out, d.Path+" "+d.Version+" "+d.Repository)
	}
	return out
}

// resolve resolves the chart at dir with r and access.
func resolve(r *dependency.Resolver, access dependency.Access, dir, root string, values map[string]any) (dependency.Result, error) {
	ch, err := loader.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	return r.Resolve(context.Background(), dependency.Request{Chart: ch, Dir: dir, Root: root, Values: values, Access: access})
}

var _ = Describe("resolving a chart's dependencies", func() {
	It("brings a dependency of each kind, under its alias, and not one that its condition turns off", func() {
		root, dir := source(parentChartYAML())
		repoRequests.Reset()

		res, err := resolve(newResolver(), plainRegistry(), dir, root, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(versions(res)).To(Equal([]string{
			"web 1.1.0 " + repo.URL, "database 0.2.0 " + registry.Repository("charts"), "common 0.1.0 file://../common"}))
		Expect(res.Dependencies[0].Digest).To(HavePrefix("sha256:"))
		Expect(repoRequests.Count("/extra-")).To(BeZero(), "extra is off: its archive is not fetched")

		objects, err := render(newResolver(), plainRegistry(), dir, root, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(configMapData(objects)).To(Equal(map[string]map[string]string{
			"rel-parent":   {"web": "from parent"},
			"rel-web":      {"version": "1.1.0", "greeting": "from parent"},
			"rel-database": {"version": "0.2.0", "greeting": "from parent to the database"},
		}))
	})

	It("brings the dependency that the values turn on", func() {
		root, dir := source(parentChartYAML())
		res, err := resolve(newResolver(), plainRegistry(), dir, root, map[string]any{"extra": map[string]any{"enabled": true}})
		Expect(err).NotTo(HaveOccurred())
		Expect(versions(res)).To(ContainElement("extra 1.0.0 " + repo.URL))
	})

	It("brings a dependency whose condition only its own defaults can decide", func() {
		root, dir := source(strings.Replace(parentChartYAML(), "condition: extra.enabled", "condition: extra.greeting", 1))
		res, err := resolve(newResolver(), plainRegistry(), dir, root, map[string]any{"extra": nil})
		Expect(err).NotTo(HaveOccurred())
		Expect(versions(res)).To(ContainElement("extra 1.0.0 "+repo.URL), "extra.greeting is set by extra's own values only")
	})

	It("brings the dependencies of a dependency", func() {
		root, dir := source("apiVersion: v2\nname: parent\nversion: 1.0.0\ndependencies:\n  - name: common\n    version: 0.1.0\n    repository: file://../common\n" +
			"  - name: nested\n    version: 1.0.0\n    repository: " + repo.URL + "\n")
		res, err := resolve(newResolver(), plainRegistry(), dir, root, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(versions(res)).To(Equal([]string{"common 0.1.0 file://../common", "nested 1.0.0 " + repo.URL, "nested/lib 1.0.0 " + repo.URL}))
	})

	It("renders what helm dependency build and helm template render", func() {
		for _, values := range []manifests.Values{nil, {"extra": manifests.Values{"enabled": true}, "web": manifests.Values{"greeting": "set"}}} {
			root, dir := source(parentChartYAML())
			objects, err := render(newResolver(), plainRegistry(), dir, root, values)
			Expect(err).NotTo(HaveOccurred())

			_, built := source(parentChartYAML())
			_, err = helmCLI.Run(built, "dependency", "build", ".", "--plain-http")
			Expect(err).NotTo(HaveOccurred())
			Expect(asYAML(asMaps(objects))).To(Equal(asYAML(helmTemplate(built, values))))
		}
	})
})

var _ = Describe("a chart's lock", func() {
	var (
		charts *localrepo.Repository
		root   string
		dir    string
	)

	BeforeEach(func() {
		var err error
		charts, err = localrepo.NewRepository()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(charts.Close)
		Expect(charts.Add(greeter("web", "1.0.0"), greeter("web", "1.1.0"), greeter("extra", "1.0.0"))).To(Succeed())
		root, dir = source(strings.ReplaceAll(parentChartYAML(), repo.URL, charts.URL))
		_, err = helmCLI.Run(dir, "repo", "add", "local", charts.URL, "--force-update")
		Expect(err).NotTo(HaveOccurred())
		_, err = helmCLI.Run(dir, "dependency", "update", ".", "--plain-http")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.RemoveAll(filepath.Join(dir, "charts"))).To(Succeed()) // what helm downloaded: only Chart.lock stays
		Expect(charts.Add(greeter("web", "1.2.0"))).To(Succeed())
	})

	It("pins the versions it holds when it matches Chart.yaml", func() {
		res, err := resolve(newResolver(), plainRegistry(), dir, root, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(versions(res)).To(ContainElement("web 1.1.0 "+charts.URL), "the lock's version, though 1.2.0 is in the range")

		Expect(os.Remove(filepath.Join(dir, "Chart.lock"))).To(Succeed())
		res, err = resolve(newResolver(), plainRegistry(), dir, root, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(versions(res)).To(ContainElement("web 1.2.0 " + charts.URL))
	})

	It("is refused when it is out of sync with Chart.yaml, as helm dependency build refuses it", func() {
		writeFiles(dir, map[string]string{"Chart.yaml": strings.ReplaceAll(strings.ReplaceAll(parentChartYAML(), repo.URL, charts.URL), "^1.0.0", "^1.2.0")})
		_, err := resolve(newResolver(), plainRegistry(), dir, root, nil)
		var lockErr *dependency.LockError
		Expect(errors.As(err, &lockErr)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(`Chart.lock is out of sync with the dependencies of Chart.yaml (dependency web: Chart.yaml asks "^1.2.0", Chart.lock holds 1.1.0): run helm dependency update and keep the Chart.lock it writes`))

		_, helmErr := helmCLI.Run(dir, "dependency", "build", ".", "--plain-http")
		Expect(helmErr).To(MatchError(ContainSubstring("out of sync")))
	})
})

var _ = Describe("the cost of resolving", func() {
	var (
		charts   *localrepo.Repository
		requests *httpcount.Counter
		root     string
		dir      string
	)

	BeforeEach(func() {
		var err error
		requests = httpcount.New()
		charts, err = localrepo.StartRepository(localrepo.RepositoryOptions{Wrap: requests.Wrap})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(charts.Close)
		Expect(charts.Add(greeter("web", "1.0.0"))).To(Succeed())
		root, dir = source("apiVersion: v2\nname: parent\nversion: 1.0.0\ndependencies:\n  - name: web\n    version: ^1\n    repository: " + charts.URL + "\n")
	})

	It("asks nothing and reads no credentials within MaxAge, and takes a new version in the range after it", func() {
		var reads atomic.Int32
		access := dependency.Access{Identity: "a", MaxAge: time.Hour, Repositories: func(context.Context) (dependency.Repositories, error) {
			reads.Add(1)
			return nil, nil
		}}
		r := newResolver()
		res, err := resolve(r, access, dir, root, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(versions(res)).To(Equal([]string{"web 1.0.0 " + charts.URL}))
		Expect(requests.Count("")).To(Equal(2), "the index and the archive")
		Expect(reads.Load()).To(Equal(int32(1)))

		Expect(charts.Add(greeter("web", "1.1.0"))).To(Succeed())
		res, err = resolve(r, access, dir, root, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(versions(res)).To(Equal([]string{"web 1.0.0 " + charts.URL}))
		Expect(requests.Count("")).To(Equal(2), "nothing asked within MaxAge")
		Expect(reads.Load()).To(Equal(int32(1)), "no credentials read within MaxAge")

		access.MaxAge = 0
		res, err = resolve(r, access, dir, root, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(versions(res)).To(Equal([]string{"web 1.1.0 " + charts.URL}))
		Expect(requests.Count("/web-1.1.0.tgz")).To(Equal(1))
	})

	It("fetches each archive once for fifty renders of fifty identities", func() {
		r := newResolver()
		var wg sync.WaitGroup
		errs := make(chan error, 50)
		for i := range 50 {
			wg.Go(func() {
				_, err := resolve(r, dependency.Access{Identity: fmt.Sprintf("namespace-%d", i), MaxAge: time.Hour}, dir, root, nil)
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(requests.Count("/web-1.0.0.tgz")).To(Equal(1))
		Expect(requests.Count("/index.yaml")).To(Equal(1))
	})
})
