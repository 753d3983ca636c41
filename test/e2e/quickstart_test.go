package e2e_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The README's offline quick start, run word for word: its shell block is
// read from README.md, each line run by bash in the checkout, with the
// binaries it installs, the cluster's state and the kubeconfig in the
// test's own directories.
var _ = Describe("the README's offline quick start", Ordered, func() {
	var shell *quickstartShell

	BeforeAll(func() {
		shell = newQuickstartShell()
	})

	It("reaches a Ready Component on `wavekit cluster create`, and `delete` leaves no process and no port behind", func() {
		lines := readmeBlock("## Try it on your machine, offline")
		Expect(lines).To(ContainElement(HavePrefix("wavekit cluster create")))
		Expect(lines[len(lines)-1]).To(Equal("wavekit cluster delete"))
		var state clusterState
		for _, line := range lines {
			if line == "wavekit cluster delete" {
				state = shell.state("wavekit")
			}
			out := shell.run(line)
			if strings.HasPrefix(line, "kubectl get components") {
				Expect(out).To(MatchRegexp(`component.wavekit.dev/shop\s+Ready\s+True`))
				Expect(out).To(MatchRegexp(`deployment.apps/shop\s+2/2`), "the real controllers rolled it out")
				Expect(out).To(MatchRegexp(`component.wavekit.dev/hello\s+Ready\s+True`), "the chart of the served repository")
				Expect(out).To(MatchRegexp(`deployment.apps/hello\s+2/2`))
				Expect(shell.run("kubectl get component hello -o jsonpath={.status.source}")).To(ContainSubstring("0.1.0"))
			}
		}
		Expect(state.Processes).To(HaveLen(8), "etcd, the egress gate, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, the simulated cloud and the operator")
		for _, p := range state.Processes {
			Expect(processRuns(p.PID)).To(BeFalse(), "%s (pid %d) still runs", p.Name, p.PID)
		}
		Expect(state.Operator.ChartsPort).To(Equal(8879))
		for _, port := range []int{state.APIServerPort, state.EtcdPort, state.Operator.ChartsPort} {
			_, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
			Expect(err).To(HaveOccurred(), "something still listens on port %d", port)
		}
		Expect(filepath.Join(shell.stateHome, "wavekit", "clusters", "wavekit")).NotTo(BeADirectory())
		Expect(os.ReadFile(shell.kubeconfig)).NotTo(ContainSubstring("wavekit-wavekit"))
	})

	It("runs the example of a chart with dependencies as its comment says, with no network", func() {
		lines := exampleCommands("examples/offline-dependencies.yaml")
		Expect(lines).To(HaveLen(4))
		DeferCleanup(func() { shell.run("wavekit cluster delete") })
		shell.run("go install ./cmd/wavekit") // as the README's block does, if no spec ran it yet
		for _, line := range lines {
			out := shell.run(line)
			if strings.HasPrefix(line, "kubectl get component storefront") {
				Expect(out).To(MatchRegexp(`\{"chart":"hello-web","digest":"sha256:[0-9a-f]{64}","name":"greeter","repository":"http://127.0.0.1:8879","version":"0.1.0"\}`))
				Expect(out).To(ContainSubstring(`{"name":"labels","repository":"file://libs/labels","version":"0.1.0"}`))
				Expect(out).NotTo(ContainSubstring("metrics"), "turned off: not fetched")
			}
		}
		Expect(shell.run("kubectl get deployment storefront -o jsonpath={.status.readyReplicas}")).To(Equal("2"), "the real controllers rolled the dependency's Deployment out")
		Expect(shell.run("kubectl get configmap storefront-greeting -o jsonpath={.data.greeting}")).To(Equal("hello from a chart with dependencies"))
		Expect(shell.run(`kubectl get configmap storefront-storefront -o jsonpath='{.metadata.labels.app\.kubernetes\.io/part-of}'`)).To(Equal("storefront"))
	})

	It("runs a preview environment per labelled pull request as examples/previews.yaml's comment says, against the fake API it starts", func() {
		lines := exampleCommands("examples/previews.yaml")
		Expect(lines).To(HaveLen(6))
		DeferCleanup(func() { shell.run("wavekit cluster delete") })
		DeferCleanup(stopProcesses, "fakescm")
		shell.run("go install ./cmd/wavekit") // as the README's block does, if no spec ran it yet
		for _, line := range lines {
			out := shell.run(line)
			if strings.HasPrefix(line, "wavekit tree --set") {
				Expect(out).To(MatchRegexp(`1\s+12\s+-\s+preview-12\s+True`))
				Expect(out).To(MatchRegexp(`1\s+14\s+-\s+preview-14\s+True`))
				Expect(out).NotTo(ContainSubstring("preview-13"), "not labelled: no preview")
			}
		}
		Expect(shell.run("kubectl get configmap -n preview-12 preview-12-config -o jsonpath={.data.greeting}")).To(Equal("preview of #12: A cart that remembers"))
		Expect(shell.run("kubectl get deployment -n preview-14 preview-14 -o jsonpath={.spec.template.spec.containers[0].image}")).To(
			Equal("registry.example.com/shop:1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"), "the pull request's head commit")
	})

	It("serves a kind of your own as examples/definition.yaml's comment runs it, and says of a definition that nothing serves it", func() {
		lines := exampleCommands("examples/definition.yaml")
		Expect(lines[0]).To(Equal("wavekit cluster create --operator --source web=examples/templates/web"), "the quick start's cluster, word for word")
		DeferCleanup(func() { shell.run("wavekit cluster delete") })
		shell.run("go install ./cmd/wavekit") // as the README's block does, if no spec ran it yet
		for _, line := range lines {
			if line == "wavekit definition list" {
				Eventually(func() string { return shell.run(line) }).WithTimeout(30*time.Second).WithPolling(time.Second).Should(
					MatchRegexp(`websites\.platform\.example\.com\s+WebSite\s+1\s+1:1\s+(-|\S+ \d+/\d+)\s+True\s`), "served, its instance counted")
				continue
			}
			out := shell.run(line)
			switch {
			case strings.HasPrefix(line, "wavekit cluster create"):
				Expect(out).To(ContainSubstring("ComponentDefinitions served, kinds in any group but Kubernetes' and the operator's"))
			case strings.HasPrefix(line, "kubectl explain"):
				Expect(out).To(ContainSubstring("replicas"), "the kind's schema is the folder's values.schema.json")
			}
		}
		Expect(shell.run("kubectl get deployment shop -o jsonpath={.status.readyReplicas}")).To(Equal("2"), "the real controllers rolled the WebSite's Deployment out")

		// The same cluster with an operator that serves no definitions: a new
		// one gets no status, and the CLI says why.
		shell.run("wavekit cluster delete --keep")
		out := shell.run("wavekit cluster create --operator --source web=examples/templates/web --definitions=false")
		Expect(out).To(ContainSubstring("ComponentDefinitions not served (--definitions=false)"))
		shell.run("sed 's/websites/pages/; s/kind: WebSite/kind: Page/; s/shortNames: \\[ws\\]/shortNames: [pg]/' examples/definition.yaml | kubectl apply -f -")
		Consistently(func() string {
			return shell.run("kubectl get componentdefinition pages.platform.example.com -o jsonpath={.status}")
		}).WithTimeout(5*time.Second).WithPolling(time.Second).Should(BeEmpty(), "no operator writes its status")
		Expect(shell.run("wavekit definition list")).To(MatchRegexp(
			`(?m)^pages\.platform\.example\.com\s+Page\s+0\s+-\s+-\s+Unknown\s+\S+\s+not served: no operator with --definitions has looked at it`))
		out, err := shell.try("wavekit get --kind pages")
		Expect(err).To(HaveOccurred())
		Expect(out).To(ContainSubstring("--kind pages: ComponentDefinition pages.platform.example.com defines it, but the cluster does not serve it: " +
			"not served: no operator with --definitions has looked at it"))
	})

	It("starts a stopped cluster again with what was in it, on the same kubeconfig, behind its egress gate even if it was created without one", func() {
		out := shell.run("wavekit cluster create --name again --nodes 1 --switch-context=false")
		Expect(out).To(ContainSubstring("addresses:  Services 198.18.0.0/16, pods 198.19.0.0/16: the API server connects to none of them, nor off this machine"))
		DeferCleanup(func() { shell.run("wavekit cluster delete --name again") })
		shell.expectClosedBox("again")
		ctx := "--context wavekit-again"
		shell.run("kubectl " + ctx + " create configmap kept --from-literal=day=one")
		shell.run("wavekit cluster delete --name again --keep")
		Expect(shell.run("wavekit cluster list")).To(MatchRegexp(`again\s+stopped`))
		for _, p := range shell.state("again").Processes {
			Expect(processRuns(p.PID)).To(BeFalse(), "%s (pid %d) still runs after delete --keep", p.Name, p.PID)
		}
		shell.forgetEgressGate("again") // as a cluster created before there was one
		Expect(shell.run("wavekit cluster create --name again --switch-context=false")).To(ContainSubstring("1 Nodes Ready"))
		Expect(shell.run("kubectl " + ctx + " get configmap kept -o jsonpath={.data.day}")).To(Equal("one"))
		Expect(shell.run("kubectl " + ctx + " get service kubernetes -o jsonpath={.spec.clusterIP}")).To(Equal("198.18.0.1"))
		shell.expectGate("again")
	})

	It("serves --charts again at each start, packaged anew, and refuses a --charts-port another program listens on", func() {
		charts := GinkgoT().TempDir()
		shell.run("cp -r examples/charts/hello-web " + charts)
		port := freePort()
		url := "http://127.0.0.1:" + strconv.Itoa(port)
		DeferCleanup(func() { shell.run("wavekit cluster delete --name charts") })
		out := shell.run(fmt.Sprintf("wavekit cluster create --name charts --nodes 1 --switch-context=false --charts %s --charts-port %d", charts, port))
		Expect(out).To(ContainSubstring("charts:     Helm repository " + url + " (spec.chart.repository)"))
		Expect(httpGet(url + "/index.yaml")).To(ContainSubstring("version: 0.1.0"))

		shell.run("wavekit cluster delete --name charts --keep")
		_, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		Expect(err).To(HaveOccurred(), "the repository stopped with the cluster")
		shell.run("sed -i 's/^version: 0.1.0$/version: 0.2.0/' " + filepath.Join(charts, "hello-web", "Chart.yaml"))
		shell.run("wavekit cluster create --name charts --switch-context=false")
		Expect(httpGet(url+"/index.yaml")).To(ContainSubstring("version: 0.2.0"), "the edit shows after a restart")
		Expect(shell.run("wavekit cluster list")).To(MatchRegexp(`charts\s+running\s+\S+\s+1\s+` + regexp.QuoteMeta(url)))

		out, err = shell.try(fmt.Sprintf("wavekit cluster create --name taken-charts --charts %s --charts-port %d", charts, port))
		Expect(err).To(HaveOccurred())
		Expect(out).To(ContainSubstring(fmt.Sprintf("port %d on 127.0.0.1, where this cluster serves its charts, "+
			"is taken by another program: stop it, or give another port with --charts-port", port)))
		Expect(filepath.Join(shell.stateHome, "wavekit", "clusters", "taken-charts")).NotTo(BeADirectory())
	})

	It("refuses a port another program listens on, and leaves no cluster behind", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		defer l.Close()
		port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		out, err := shell.try("wavekit cluster create --name taken --port " + port)
		Expect(err).To(HaveOccurred())
		Expect(out).To(ContainSubstring("port " + port + " on 127.0.0.1, which the API server of this cluster uses, is taken by another program"))
		Expect(filepath.Join(shell.stateHome, "wavekit", "clusters", "taken")).NotTo(BeADirectory())
	})
})

// quickstartShell runs command lines as a user would, in the checkout, with
// its own GOBIN first on PATH, state directory and kubeconfig.
type quickstartShell struct {
	env                   []string
	stateHome, kubeconfig string
}

func newQuickstartShell() *quickstartShell {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	assets, err := testcluster.Assets()
	Expect(err).NotTo(HaveOccurred())
	bin := filepath.Join(dir, "bin")
	s := &quickstartShell{stateHome: filepath.Join(dir, "state"), kubeconfig: filepath.Join(dir, "kubeconfig")}
	s.env = append(os.Environ(),
		"GOBIN="+bin,
		"PATH="+bin+string(os.PathListSeparator)+filepath.Dir(kubectlBinary())+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_STATE_HOME="+s.stateHome,
		"KUBECONFIG="+s.kubeconfig,
		"KUBEBUILDER_ASSETS="+assets,
	)
	DeferCleanup(func() { _, _ = s.try("wavekit cluster delete") })
	return s
}

// run runs line and returns its standard output; it fails the spec unless
// the line exits 0.
func (s *quickstartShell) run(line string) string {
	GinkgoHelper()
	out, err := s.try(line)
	Expect(err).NotTo(HaveOccurred(), "%s:\n%s", line, out)
	return out
}

// try runs line with bash and returns its output (stdout, then stderr on an
// error).
func (s *quickstartShell) try(line string) (string, error) {
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", line)
	cmd.Dir = testcluster.ModuleRoot()
	cmd.Env = s.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	fmt.Fprintf(GinkgoWriter, "$ %s\n%s%s", line, out, stderr.String())
	if err != nil {
		return string(out) + stderr.String(), err
	}
	return strings.TrimSpace(string(out)), nil
}

// clusterState is what a local cluster records about itself.
type clusterState struct {
	APIServerPort int    `json:"apiServerPort"`
	EtcdPort      int    `json:"etcdPort"`
	ServiceCIDR   string `json:"serviceCIDR"`
	Operator      struct {
		ChartsPort int `json:"chartsPort"`
	} `json:"operator"`
	Processes []struct {
		Name string `json:"name"`
		PID  int    `json:"pid"`
	} `json:"processes"`
}

func (s *quickstartShell) state(name string) clusterState {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(s.stateHome, "wavekit", "clusters", name, "cluster.json"))
	Expect(err).NotTo(HaveOccurred())
	var state clusterState
	Expect(json.Unmarshal(data, &state)).To(Succeed())
	return state
}

// stopProcesses stops the processes whose command line begins with name
// (a program an example starts in the background).
func stopProcesses(name string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && filepath.Base(strings.SplitN(string(cmdline), "\x00", 2)[0]) == name {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
	}
}

// processRuns reports whether pid is a process that has not exited (a
// zombie, which a container's init may never reap, has).
func processRuns(pid int) bool {
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		i := strings.LastIndexByte(string(stat), ')')
		return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
	}
	return syscall.Kill(pid, 0) == nil
}

// readmeBlock returns the command lines of the first shell block below
// heading in README.md.
func readmeBlock(heading string) []string {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(testcluster.ModuleRoot(), "README.md"))
	Expect(err).NotTo(HaveOccurred())
	_, section, found := strings.Cut(string(data), "\n"+heading+"\n")
	Expect(found).To(BeTrue(), "README.md has no heading %q", heading)
	_, block, found := strings.Cut(section, "```sh\n")
	Expect(found).To(BeTrue(), "no shell block below %q", heading)
	block, _, _ = strings.Cut(block, "```")
	var lines []string
	for _, line := range strings.Split(block, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	return lines
}

// exampleCommands returns the command lines an example's comment shows,
// indented under its first lines ("#   wavekit …").
func exampleCommands(example string) []string {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(testcluster.ModuleRoot(), example))
	Expect(err).NotTo(HaveOccurred())
	var lines []string
	for _, line := range strings.Split(string(data), "\n") {
		if command, ok := strings.CutPrefix(line, "#   "); ok {
			lines = append(lines, strings.TrimSpace(command))
		}
	}
	return lines
}

// kubectlBinary is kubectl from PATH, else the one hack/kubectl builds.
func kubectlBinary() string {
	GinkgoHelper()
	kubectl, err := operatortest.Kubectl(testcluster.ModuleRoot(), GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	return kubectl
}

// freePort is a port on 127.0.0.1 that nothing listens on now.
func freePort() int {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// httpGet returns the body of url, failing the spec unless it answers 200.
func httpGet(url string) string {
	GinkgoHelper()
	resp, err := http.Get(url)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s: %s", url, body)
	return string(body)
}
