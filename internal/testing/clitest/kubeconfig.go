package clitest

import (
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// CountingKubeconfig returns a kubeconfig that reaches the suite's API
// server through a proxy counting every request the CLI sends.
func CountingKubeconfig() (string, *apicount.Counter) {
	GinkgoHelper()
	counter := apicount.New()
	transport, err := rest.TransportFor(counter.Wrap(rest.CopyConfig(Env.Config)))
	Expect(err).NotTo(HaveOccurred())
	target, err := url.Parse(Env.Config.Host)
	Expect(err).NotTo(HaveOccurred())
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport, proxy.FlushInterval = transport, -1 // -1: stream watches
	server := httptest.NewServer(proxy)
	DeferCleanup(server.Close)
	path := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(&rest.Config{Host: server.URL}, path)).To(Succeed())
	return path, counter
}
