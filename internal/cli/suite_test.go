package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

func TestCLI(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "cli")
}

var (
	env *testcluster.Env
	// kubeconfig reaches the test cluster's API server; unreachable points nowhere.
	kubeconfig, unreachable string
)

var _ = BeforeSuite(func() {
	log.SetLogger(GinkgoLogr)
	var err error
	// The whole cluster: the Deployments the CLI waits for are rolled out
	// by the Deployment controller, the scheduler and kwok.
	env, err = testcluster.Start(testcluster.Options{Controllers: true})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	dir := GinkgoT().TempDir()
	kubeconfig = filepath.Join(dir, "kubeconfig")
	Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())
	unreachable = filepath.Join(dir, "unreachable")
	Expect(testcluster.WriteKubeconfig(&rest.Config{Host: "https://127.0.0.1:1"}, unreachable)).To(Succeed())
})

// result is what one command run printed and returned.
type result struct {
	code           int
	stdout, stderr string
}

// wavekit runs the CLI in process against the test API server.
func wavekit(args ...string) result {
	return wavekitWith(kubeconfig, args...)
}

func wavekitWith(config string, args ...string) result {
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), append([]string{"--kubeconfig", config}, args...), &stdout, &stderr)
	GinkgoWriter.Printf("wavekit %v -> %d\n%s%s", args, code, stdout.String(), stderr.String())
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// succeeds runs the CLI and expects exit code 0.
func succeeds(args ...string) string {
	GinkgoHelper()
	r := wavekit(args...)
	Expect(r.code).To(Equal(0), "stderr: %s", r.stderr)
	return r.stdout
}

var namespaces int

// newNamespace creates a namespace of its own for one test.
func newNamespace() string {
	namespaces++
	ns := &corev1.Namespace{}
	ns.Name = fmt.Sprintf("cli-%d-%d", GinkgoParallelProcess(), namespaces)
	Expect(env.Client.Create(context.Background(), ns)).To(Succeed())
	return ns.Name
}

// configMap returns the ConfigMap, or nil when it does not exist.
func configMap(namespace, name string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{}
	err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, cm)
	if err != nil {
		Expect(client.IgnoreNotFound(err)).To(Succeed())
		return nil
	}
	return cm
}

// inventorySecret returns the release Secret, or nil.
func inventorySecret(namespace, name string) *corev1.Secret {
	secret := &corev1.Secret{}
	err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: "wavekit." + name}, secret)
	if err != nil {
		Expect(client.IgnoreNotFound(err)).To(Succeed())
		return nil
	}
	return secret
}

// countingKubeconfig returns a kubeconfig that reaches the test API server
// through a proxy counting every request the CLI sends.
func countingKubeconfig() (string, *apicount.Counter) {
	GinkgoHelper()
	counter := apicount.New()
	transport, err := rest.TransportFor(counter.Wrap(rest.CopyConfig(env.Config)))
	Expect(err).NotTo(HaveOccurred())
	target, err := url.Parse(env.Config.Host)
	Expect(err).NotTo(HaveOccurred())
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport, proxy.FlushInterval = transport, -1 // -1: stream watches
	server := httptest.NewServer(proxy)
	DeferCleanup(server.Close)
	path := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(&rest.Config{Host: server.URL}, path)).To(Succeed())
	return path, counter
}
