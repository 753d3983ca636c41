package dependency_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/chart"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/depcharts"
	"github.com/wavekit-dev/wavekit/internal/testing/helmcli"
	"github.com/wavekit-dev/wavekit/internal/testing/httpcount"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/dependency"
	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// prefix is the operator name of the test renders.
const prefix = "wavekit.test"

var (
	// helmCLI is the helm CLI of the module's Helm version: the oracle.
	helmCLI *helmcli.CLI
	// repo is a Helm repository and registry an OCI registry, each
	// with its requests counted, serving the charts the specs depend on.
	repo             *localrepo.Repository
	repoRequests     *httpcount.Counter
	registry         *localregistry.Registry
	registryRequests *httpcount.Counter
)

func TestDependency(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "chart dependencies")
}

var _ = BeforeSuite(func() {
	dir, err := os.MkdirTemp("", "wavekit-dependency-suite-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, dir)
	helmCLI, err = helmcli.Build(dir)
	Expect(err).NotTo(HaveOccurred())

	repoRequests = httpcount.New()
	repo, err = localrepo.StartRepository(localrepo.RepositoryOptions{Wrap: repoRequests.Wrap})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(repo.Close)
	Expect(repo.Add(greeter("web", "1.0.0"), greeter("web", "1.1.0"), greeter("web", "2.0.0"), greeter("extra", "1.0.0"),
		greeter("lib", "1.0.0"), withDependencies(greeter("nested", "1.0.0"), &chart.Dependency{Name: "lib", Version: "^1", Repository: repo.URL}),
	)).To(Succeed())

	registryRequests = httpcount.New()
	registry, err = localregistry.Start(localregistry.Options{Wrap: registryRequests.Wrap})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(registry.Close)
	Expect(registry.Push("charts", greeter("db", "0.1.0"))).To(Succeed())
	Expect(registry.Push("charts", greeter("db", "0.2.0"))).To(Succeed())
})

// greeter is depcharts.Greeter.
var greeter = depcharts.Greeter

func withDependencies(ch localrepo.Chart, deps ...*chart.Dependency) localrepo.Chart {
	ch.Dependencies = deps
	return ch
}

// parentChartYAML is depcharts.ParentChartYAML of the suite's repository
// and registry: a dependency of each kind, an alias, and one a condition
// turns off.
func parentChartYAML() string {
	return depcharts.ParentChartYAML(repo.URL, registry.Repository("charts"))
}

// source writes depcharts.Source(chartYAML) into a new directory and
// returns the tree's root and the parent chart's directory.
func source(chartYAML string) (root, dir string) {
	root = GinkgoT().TempDir()
	writeFiles(root, depcharts.Source(chartYAML))
	return root, filepath.Join(root, "charts", "parent")
}

func writeFiles(root string, files map[string]string) {
	ExpectWithOffset(1, depcharts.Write(root, files)).To(Succeed())
}

// newResolver returns a Resolver over a new cache.
func newResolver(opts ...fetch.Option) *dependency.Resolver {
	cache, err := fetch.NewCache(GinkgoT().TempDir(), 1<<30)
	Expect(err).NotTo(HaveOccurred())
	return dependency.NewResolver(fetch.NewFetcher(cache, opts...))
}

// plainRegistry is the access of a render that speaks plain HTTP to the
// test registry, as its repository entry says.
func plainRegistry() dependency.Access {
	return dependency.Access{MaxAge: time.Hour, Repositories: func(context.Context) (dependency.Repositories, error) {
		return dependency.Repositories{{URL: "oci://" + registry.Host, PlainHTTP: true}}, nil
	}}
}

// helmResolver is a helm.DependencyResolver of one access.
type helmResolver struct {
	r      *dependency.Resolver
	access dependency.Access
}

func (h helmResolver) ResolveDependencies(ctx context.Context, req helm.DependencyRequest) (*chart.Chart, error) {
	res, err := h.r.Resolve(ctx, dependency.Request{Chart: req.Chart, Dir: req.Dir, Root: req.Root, Values: req.Values, Access: h.access})
	return res.Chart, err
}

// render renders the chart at dir as release rel in namespace ns with the
// resolver and access.
func render(r *dependency.Resolver, access dependency.Access, dir, root string, values manifests.Values) ([]client.Object, error) {
	g, err := helm.Load(dir, helm.WithOperatorName(prefix), helm.WithDependencies(helmResolver{r: r, access: access}), helm.WithSourceRoot(root))
	if err != nil {
		return nil, err
	}
	ctx := manifests.WithComponentInfo(context.Background(), manifests.ComponentInfo{OperatorName: prefix, FirstApply: true, Revision: 1})
	return g.Generate(ctx, "ns", "rel", values)
}

// configMapData returns the data of each ConfigMap rendered, by name.
func configMapData(objects []client.Object) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, obj := range objects {
		u := obj.(*unstructured.Unstructured)
		if u.GetKind() != "ConfigMap" {
			continue
		}
		data, _, _ := unstructured.NestedStringMap(u.Object, "data")
		out[u.GetName()] = data
	}
	return out
}
