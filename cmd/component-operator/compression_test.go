package main_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/apirequest"
	testenv "github.com/wavekit-dev/wavekit/pkg/testenv"
)

// A gzipped response holds a decompressor in the operator while it is
// read: for a watch, as long as the watch lasts (about 110 KiB each; one a
// served kind).
var _ = Describe("compression of the API server's responses", func() {
	var cfg, identity *rest.Config
	BeforeEach(func(ctx SpecContext) {
		env := &testenv.Environment{APIServerOnly: true}
		env.CRDDirectoryPaths = []string{filepath.Join(testcluster.ModuleRoot(), "config", "crd", "bases")}
		env.ErrorIfCRDPathMissing = true
		started, err := env.Start()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(env.Stop)
		scheme := k8sruntime.NewScheme()
		Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
		c, err := client.New(started, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wavekit-system"}})).To(Succeed())
		Expect(operatortest.ApplyRBAC(ctx, c, testcluster.ModuleRoot(), "wavekit", "wavekit-system", map[string]any{})).To(Succeed())
		identity, err = operatortest.ServiceAccountConfig(ctx, c, started, "wavekit-system", "wavekit-component-operator")
		Expect(err).NotTo(HaveOccurred())
		cfg = started
	})

	// watchEncodings starts the operator with args and returns the
	// Accept-Encoding of each of its watches, once it watches.
	watchEncodings := func(args ...string) []string {
		var mu sync.Mutex
		var encodings []string
		proxy, err := apicount.StartProxy(cfg, func(req *http.Request) {
			if apirequest.Verb(req) == "watch" {
				mu.Lock()
				encodings = append(encodings, req.Header.Get("Accept-Encoding"))
				mu.Unlock()
			}
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(proxy.Close)
		kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(testcluster.WriteKubeconfig(proxy.Config(identity.BearerToken), kubeconfig)).To(Succeed())
		start(kubeconfig, append([]string{"--source", "web=../../internal/cli/testdata/web"}, args...)...)
		Eventually(func() int { return proxy.Counter.Count("watch", "components") }).WithTimeout(time.Minute).Should(BeNumerically(">", 0))
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), encodings...)
	}

	It("is off unless asked for: no watch asks for gzip", func() {
		encodings := watchEncodings()
		Expect(encodings).NotTo(BeEmpty())
		for _, e := range encodings {
			Expect(strings.Contains(e, "gzip")).To(BeFalse(), "Accept-Encoding %q", e)
		}
	})

	It("is on with --api-compression", func() {
		Expect(watchEncodings("--api-compression")).To(ContainElement(ContainSubstring("gzip")))
	})
})
