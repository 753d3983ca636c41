package dashboard_test

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/dashboard"
)

// benchEnv is the API server (and etcd) of the benchmarks, as the specs'
// is: the page only reads, so nothing else needs to run; the specs and
// benchmarks write the Components' status as their operator would.
var benchEnv = &testcluster.Once{Options: testcluster.Options{Scheme: testScheme()}}

func testScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	return scheme
}

// TestMain stops the benchmarks' control plane.
func TestMain(m *testing.M) {
	code := m.Run()
	_ = benchEnv.Stop()
	os.Exit(code)
}

func TestDashboard(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "dashboard")
}

var (
	ctx = context.Background()
	env *testcluster.Env
	// local is the page without a login, as wavekit dashboard serves it.
	local *httptest.Server
)

var _ = BeforeSuite(func() {
	var err error
	env, err = testcluster.Start(testcluster.Options{Scheme: testScheme()})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	h, err := startPage(ctx, env.Config, dashboard.Options{Log: zap.New(zap.WriteTo(GinkgoWriter))}, func(f func()) { DeferCleanup(f) })
	Expect(err).NotTo(HaveOccurred())
	local = httptest.NewServer(h)
	DeferCleanup(local.Close)
})

// componentKind is the reference operator's kind.
var componentKind = v1alpha1.GroupVersion.WithKind("Component")

// startPage starts an informer cache of cfg, stopped by what it hands to
// cleanup, and returns the page on it, of the Component kind.
func startPage(ctx context.Context, cfg *rest.Config, opts dashboard.Options, cleanup func(func())) (*dashboard.Handler, error) {
	scheme := testScheme()
	c, err := cache.New(cfg, cache.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	opts.Kinds, opts.Scheme = append(opts.Kinds, componentKind), scheme
	h, err := dashboard.New(ctx, c, cl.RESTMapper(), opts)
	if err != nil {
		return nil, err
	}
	cacheCtx, cancel := context.WithCancel(ctx)
	go func() { _ = c.Start(cacheCtx) }()
	cleanup(cancel)
	if !c.WaitForCacheSync(ctx) {
		return nil, context.Canceled
	}
	return h, nil
}
