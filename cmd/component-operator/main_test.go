package main_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	testenv "github.com/wavekit-dev/wavekit/pkg/testenv"
)

func TestOperatorBinary(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "component-operator")
}

var binary string

var _ = BeforeSuite(func() {
	var err error
	binary, err = gexec.Build("github.com/wavekit-dev/wavekit/cmd/component-operator")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(gexec.CleanupBuildArtifacts)
})

// countingServer is an API server that answers nothing but counts requests;
// it returns a kubeconfig that points to it.
func countingServer() (string, *atomic.Int64) {
	var requests atomic.Int64
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		http.NotFound(w, nil)
	}))
	DeferCleanup(server.Close)
	path := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(&rest.Config{Host: server.URL}, path)).To(Succeed())
	return path, &requests
}

// start runs the operator with args, a kubeconfig and an empty home.
func start(kubeconfig string, args ...string) *gexec.Session {
	cmd := exec.Command(binary, append([]string{"--kubeconfig", kubeconfig,
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+GinkgoT().TempDir(), "KUBERNETES_SERVICE_HOST=")
	session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Kill().Wait(10 * time.Second) })
	return session
}

var _ = Describe("start-up", func() {
	It("refuses bad flags, one problem per line, before it connects to the cluster", func() {
		kubeconfig, requests := countingServer()
		misnamed := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(misnamed, "Chart.yml"), []byte("name: web\n"), 0o644)).To(Succeed())
		session := start(kubeconfig,
			"--source", "web", "--source", "a=../../internal/cli/testdata/web", "--source", "a=/x",
			"--source", "gone=/does/not/exist", "--source", "chart="+misnamed,
			"--concurrent", "0", "--watch-namespaces", "apps,Team_A")
		Eventually(session).WithTimeout(time.Minute).Should(gexec.Exit(1))
		Expect(string(session.Err.Contents())).To(Equal("component-operator: --concurrent 0: give at least 1\n" +
			"  --source \"web\": want NAME=DIR\n" +
			"  --source \"a=/x\": source a given twice\n" +
			"  --source chart=" + misnamed + ": source " + misnamed + ": found Chart.yml: Helm charts need Chart.yaml; rename it\n" +
			"  --source gone=/does/not/exist: source /does/not/exist: no such directory\n" +
			"  --watch-namespaces: \"Team_A\" is not a namespace name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " +
			"and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"))
		Expect(requests.Load()).To(BeZero(), "requests to the API server")
	})

	It("says which Git URLs --allowed-sources matches, as security-sources.md's table does", func() {
		session, err := gexec.Start(exec.Command(binary, "--help"), GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(session).WithTimeout(time.Minute).Should(gexec.Exit())
		help := strings.Join(strings.Fields(string(session.Err.Contents())), " ")
		Expect(help).To(ContainSubstring("Git repositories (spec.git.url, Git valuesFrom, submodules, redirects"))
		table, err := os.ReadFile(filepath.Join("..", "..", "docs", "security-sources.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(table)).To(And(ContainSubstring("| `spec.git` | `spec.git.url`"), ContainSubstring("| `valuesFrom` of kind Git | its `git.url` |"),
			ContainSubstring("| a submodule of either (`recurseSubmodules`) |"), ContainSubstring("| a redirect of a Git repository |")))
	})

	It("refuses an operator name that cannot prefix annotation keys", func() {
		kubeconfig, requests := countingServer()
		session := start(kubeconfig, "--operator-name", "Bad_Name")
		Eventually(session).WithTimeout(time.Minute).Should(gexec.Exit(1))
		Expect(string(session.Err.Contents())).To(HavePrefix(`component-operator: --operator-name: operator name "Bad_Name" is invalid: ` +
			"it prefixes annotation and label keys, so it must be a DNS subdomain such as example.com"))
		Expect(requests.Load()).To(BeZero(), "requests to the API server")
	})

	It("refuses a trace sample ratio outside 0 to 1 before it connects to the cluster", func() {
		kubeconfig, requests := countingServer()
		session := start(kubeconfig, "--otlp-endpoint", "http://127.0.0.1:4318", "--trace-sample-ratio", "2")
		Eventually(session).WithTimeout(time.Minute).Should(gexec.Exit(1))
		Expect(string(session.Err.Contents())).To(Equal("component-operator: --trace-sample-ratio 2: give a number from 0 to 1\n"))
		Expect(requests.Load()).To(BeZero(), "requests to the API server")
	})

	It("refuses alert flags that make no sense before it connects to the cluster", func() {
		kubeconfig, requests := countingServer()
		session := start(kubeconfig, "--alert-attempts", "0", "--alert-burst", "-1", "--alert-refill", "0s")
		Eventually(session).WithTimeout(time.Minute).Should(gexec.Exit(1))
		Expect(string(session.Err.Contents())).To(Equal("component-operator: --alert-attempts 0: give at least 1\n" +
			"  --alert-burst -1: give 0 (no rate limit) or more\n" +
			"  --alert-refill 0s: give a positive duration\n"))
		Expect(requests.Load()).To(BeZero(), "requests to the API server")
	})

	It("refuses a log format other than json or text before it connects to the cluster", func() {
		kubeconfig, requests := countingServer()
		session := start(kubeconfig, "--log-format", "yaml")
		Eventually(session).WithTimeout(time.Minute).Should(gexec.Exit(1))
		Expect(string(session.Err.Contents())).To(Equal("component-operator: --log-format yaml: give json or text\n"))
		Expect(requests.Load()).To(BeZero(), "requests to the API server")
	})

	It("connects with good flags (the counter counts)", func() {
		kubeconfig, requests := countingServer()
		start(kubeconfig, "--source", "web=../../internal/cli/testdata/web")
		Eventually(requests.Load).WithTimeout(time.Minute).Should(BeNumerically(">", 0))
	})

	It("says how to install its CRD when the cluster does not serve Components, and writes nothing", func() {
		env := &testenv.Environment{APIServerOnly: true}
		cfg, err := env.Start()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(env.Stop)
		kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(testcluster.WriteKubeconfig(cfg, kubeconfig)).To(Succeed())
		session := start(kubeconfig, "--leader-elect", "--leader-election-namespace", "default")
		Eventually(session).WithTimeout(time.Minute).Should(gexec.Exit(1))
		Expect(string(session.Err.Contents())).To(Equal("component-operator: the cluster at " + cfg.Host +
			" does not serve the Component CRD (components.wavekit.dev, version v1alpha1): install it with " +
			operator.InstallCRDHint + "\n"))
		c, err := client.New(cfg, client.Options{})
		Expect(err).NotTo(HaveOccurred())
		var leases coordinationv1.LeaseList
		Expect(c.List(context.Background(), &leases, client.InNamespace("default"))).To(Succeed())
		Expect(leases.Items).To(BeEmpty(), "no leader-election Lease")
	})

	It("says how to give it a cluster when it has no kubeconfig", func() {
		cmd := exec.Command(binary, "--metrics-bind-address", "0", "--health-probe-bind-address", "0")
		cmd.Env = append(os.Environ(), "HOME="+GinkgoT().TempDir(), "KUBECONFIG="+filepath.Join(GinkgoT().TempDir(), "missing"), "KUBERNETES_SERVICE_HOST=")
		session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(session).WithTimeout(time.Minute).Should(gexec.Exit(1))
		Expect(string(session.Err.Contents())).To(Equal("component-operator: no kubeconfig found and not in a pod: set --kubeconfig or KUBECONFIG, or run the operator in a pod\n"))
	})
})
