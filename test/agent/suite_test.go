// Package agent_test runs pulled clusters as a user runs them: a hub (a
// local cluster) with the operator binary under its chart's RBAC, three
// member clusters (bare API servers) each with its agent — the wavekit
// binary, `wavekit agent run`, a process of its own — running as the agent
// chart's ServiceAccount with that chart's RBAC, given only the hub's
// address and the kubeconfig `wavekit agent register` wrote: the hub is
// given no kubeconfig of them. Two more members are pushed, for a set over
// both kinds.
package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/agent/register"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/internal/testing/faultproxy"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

func TestAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "agent")
}

const (
	operatorNamespace = "wavekit-system"
	operatorAccount   = "wavekit-component-operator"
	// agentNamespace is where each member installs the agent chart, as
	// release agentRelease; agentAccount is the chart's ServiceAccount.
	agentNamespace = "wavekit-agent"
	agentRelease   = "wavekit-agent"
	agentAccount   = "wavekit-agent"
	// ns is the namespace of the sets and cluster Secrets on the hub, and
	// of the Components on the members.
	ns = "fleet"
	// leaseDuration is the agents' Lease: short, so that a stopped agent
	// is Unknown within seconds.
	leaseDuration = 3 * time.Second
	timeout       = 90 * time.Second
)

// clusterNames name the members: p1, p2 and p3 are pulled (members[0:3],
// each with its agent), c4 and c5 pushed.
var clusterNames = []string{"p1", "p2", "p3", "c4", "c5"}

const pulledClusters = 3

var (
	ctx = context.Background()
	hub *testcluster.Env
	// members, in the order of clusterNames.
	members []*testcluster.Env
	// agents by cluster name.
	agents = map[string]*runningAgent{}
	// credentials of the agents on the hub, by cluster name: the hub
	// kubeconfigs `wavekit agent register` wrote; tokenFiles are the files
	// the agents keep their renewed tokens in.
	credentials = map[string]*rest.Config{}
	tokenFiles  = map[string]string{}
	// hubKubeconfigs and memberKubeconfigs are the files an agent starts
	// with: the hub's (its registered credential) and its own cluster's
	// (the agent chart's ServiceAccount token), by cluster name.
	hubKubeconfigs    = map[string]string{}
	memberKubeconfigs = map[string]string{}
	// admin is a kubeconfig of the hub's administrator, for the CLI.
	admin string
	// wavekit is the wavekit binary, built once.
	wavekit string
	// p1Link carries p1's agent's connections to the hub, to cut them.
	p1Link *faultproxy.Proxy
)

var _ = BeforeSuite(func() {
	ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	started := make(chan error, 1)
	go func() {
		var err error
		members, err = testcluster.StartClusters(len(clusterNames))
		started <- err
	}()
	// Both binaries link while the clusters start.
	var operatorBinary string
	builtWavekit, builtOperator := make(chan error, 1), make(chan error, 1)
	go func() {
		var err error
		wavekit, err = buildWavekit(GinkgoT().TempDir())
		builtWavekit <- err
	}()
	go func() {
		var err error
		operatorBinary, err = operatortest.BuildOperator(testcluster.ModuleRoot(), GinkgoT().TempDir())
		builtOperator <- err
	}()
	var err error
	hub, err = testcluster.Start(testcluster.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(hub.Stop()).To(Succeed()) })
	Expect(<-started).To(Succeed())
	DeferCleanup(func() {
		for _, m := range members {
			Expect(m.Stop()).To(Succeed())
		}
	})

	Expect(<-builtWavekit).To(Succeed())
	Expect(<-builtOperator).To(Succeed())
	for _, name := range []string{operatorNamespace, ns} {
		Expect(hub.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
	}
	Expect(operatortest.ApplyRBAC(ctx, hub.Client, testcluster.ModuleRoot(), "wavekit", operatorNamespace, map[string]any{})).To(Succeed())
	operatorConfig, err := operatortest.ServiceAccountConfig(ctx, hub.Client, hub.Config, operatorNamespace, operatorAccount)
	Expect(err).NotTo(HaveOccurred())
	session, err := operatortest.Operator{Binary: operatorBinary, Config: operatorConfig, Dir: GinkgoT().TempDir(),
		Args: []string{"--source", "site=" + siteSource()}, Out: GinkgoWriter}.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Terminate().Wait(10 * time.Second) })

	hubURL, err := url.Parse(hub.Config.Host)
	Expect(err).NotTo(HaveOccurred())
	p1Link, err = faultproxy.Start(hubURL.Host)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(p1Link.Close)
	admin = filepath.Join(GinkgoT().TempDir(), "hub-admin.kubeconfig")
	Expect(testcluster.WriteKubeconfig(hub.Config, admin)).To(Succeed())
	for i, name := range clusterNames[:pulledClusters] {
		installAgentChart(name, members[i], scheme)
		switch name {
		case "p1": // as a user does, with the CLI, reaching the hub through a link the specs cut
			hubKubeconfigs[name] = registerWithCLI(name, "--server", "https://"+p1Link.Addr())
		case "p2": // by the Go API
			hubKubeconfigs[name] = registerWithAPI(name)
		default:
			hubKubeconfigs[name] = registerWithCLI(name)
		}
		credentials[name], err = clientcmd.BuildConfigFromFlags("", hubKubeconfigs[name])
		Expect(err).NotTo(HaveOccurred())
		tokenFiles[name] = filepath.Join(GinkgoT().TempDir(), "hub-token")
		agents[name] = startAgent(name, fleet.WorkNamespace(ns, name), members[i])
	}
	DeferCleanup(func() {
		for _, a := range agents { // those the specs restarted too
			a.stop()
		}
	})
	for i, name := range clusterNames[pulledClusters:] {
		member := members[pulledClusters+i]
		secret, err := member.KubeconfigSecret(ns, name, map[string]string{"wavekit.dev/cluster": "true", "fleet": "demo", "wave": waveOf(name)})
		Expect(err).NotTo(HaveOccurred())
		Expect(hub.Client.Create(ctx, secret)).To(Succeed())
	}
})

// buildWavekit builds the wavekit CLI of the checkout into dir, without
// its symbol table and debug information (a shorter link, as the release's).
func buildWavekit(dir string) (string, error) {
	binary := filepath.Join(dir, "wavekit")
	build := exec.Command("go", "build", "-ldflags=-s -w", "-o", binary, "./cmd/wavekit")
	build.Dir = testcluster.ModuleRoot()
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building wavekit: %w\n%s", err, out)
	}
	return binary, nil
}

// installAgentChart does on member what installing the agent chart does
// before its pod starts: the Component CRD of the chart's crds/, the
// release namespace, and the chart's ServiceAccount and RBAC (rendered from
// config/agent-chart, granting what the site source deploys); it writes
// memberKubeconfigs[name], a kubeconfig of that ServiceAccount's token.
func installAgentChart(name string, member *testcluster.Env, scheme *runtime.Scheme) {
	GinkgoHelper()
	var err error
	member.Client, err = client.New(member.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	chart := filepath.Join(testcluster.ModuleRoot(), "config", "agent-chart")
	_, err = envtest.InstallCRDs(member.Config, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join(chart, "crds")}, ErrorIfPathMissing: true})
	Expect(err).NotTo(HaveOccurred())
	Expect(member.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: agentNamespace}})).To(Succeed())
	objects, err := operatortest.RBAC(chart, agentRelease, agentNamespace, map[string]any{
		"hub": map[string]any{"namespace": fleet.WorkNamespace(ns, name)},
		"rbac": map[string]any{"extraRules": []any{map[string]any{
			"apiGroups": []any{""}, "resources": []any{"configmaps"},
			"verbs": []any{"get", "list", "watch", "create", "update", "patch", "delete"}}}},
	})
	Expect(err).NotTo(HaveOccurred())
	for _, o := range objects {
		Expect(member.Client.Create(ctx, o)).To(Succeed(), "%s %s", o.GetKind(), o.GetName())
	}
	cfg, err := operatortest.ServiceAccountConfig(ctx, member.Client, member.Config, agentNamespace, agentAccount)
	Expect(err).NotTo(HaveOccurred())
	memberKubeconfigs[name] = filepath.Join(GinkgoT().TempDir(), name+".kubeconfig")
	Expect(testcluster.WriteKubeconfig(cfg, memberKubeconfigs[name])).To(Succeed())
}

// registerWithCLI registers cluster with `wavekit agent register` and
// returns the hub kubeconfig it wrote for the agent.
func registerWithCLI(cluster string, args ...string) string {
	GinkgoHelper()
	out := filepath.Join(GinkgoT().TempDir(), cluster+"-hub.kubeconfig")
	cmd := exec.Command(wavekit, append([]string{"--kubeconfig", admin, "agent", "register", ns + "/" + cluster,
		"-l", "fleet=demo", "-l", "wave=" + waveOf(cluster), "--token-lifetime", "1h", "-o", out}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	Expect(cmd.Run()).To(Succeed(), stderr.String())
	Expect(stdout.String()).To(ContainSubstring("its namespace on the hub is " + fleet.WorkNamespace(ns, cluster)))
	cfg, err := clientcmd.BuildConfigFromFlags("", out)
	Expect(err).NotTo(HaveOccurred())
	Expect(cfg.CertData).To(BeEmpty(), "the agent's kubeconfig holds its token, no admin's certificate")
	Expect(cfg.BearerToken).NotTo(BeEmpty())
	return out
}

// registerWithAPI registers cluster with package register and writes the
// agent's hub kubeconfig as the CLI does.
func registerWithAPI(cluster string) string {
	GinkgoHelper()
	workNS, err := register.Register(ctx, hub.Client, register.Cluster{Namespace: ns, Name: cluster,
		Labels: map[string]string{"fleet": "demo", "wave": waveOf(cluster)}})
	Expect(err).NotTo(HaveOccurred())
	credential, err := register.Credential(ctx, hub.Client, hub.Config, workNS, time.Hour)
	Expect(err).NotTo(HaveOccurred())
	out := filepath.Join(GinkgoT().TempDir(), cluster+"-hub.kubeconfig")
	Expect(testcluster.WriteKubeconfig(credential, out)).To(Succeed())
	return out
}

func siteSource() string {
	return filepath.Join(testcluster.ModuleRoot(), "test", "agent", "testdata", "site")
}

func waveOf(cluster string) string {
	if cluster == "p1" {
		return "canary"
	}
	return "main"
}

// runningAgent is an agent process.
type runningAgent struct {
	session *gexec.Session
}

// startAgent runs `wavekit agent run` for cluster name on member, as the
// agent chart's pod runs it: as the chart's ServiceAccount in member, with
// the hub kubeconfig its registration wrote, its hub namespace workNS and
// a token file of its own (seeded from that kubeconfig on first start,
// renewed by the agent); the suite stops the one in agents.
func startAgent(name, workNS string, member *testcluster.Env) *runningAgent {
	GinkgoHelper()
	Expect(memberKubeconfigs).To(HaveKey(name), "the agent chart is installed on %s", member.Config.Host)
	cmd := exec.Command(wavekit, "--kubeconfig", memberKubeconfigs[name], "agent", "run",
		"--hub-kubeconfig", hubKubeconfigs[name], "--hub-namespace", workNS, "--token-file", tokenFiles[name],
		"--lease-duration", leaseDuration.String(), "--source", "site="+siteSource())
	// As in the chart's pod: the render key goes to the release namespace,
	// the source cache to a /tmp of its own.
	cmd.Env = append(os.Environ(), "POD_NAMESPACE="+agentNamespace, "TMPDIR="+GinkgoT().TempDir())
	prefix := fmt.Sprintf("[agent %s] ", name)
	session, err := gexec.Start(cmd, gexec.NewPrefixedWriter(prefix, GinkgoWriter), gexec.NewPrefixedWriter(prefix, GinkgoWriter))
	Expect(err).NotTo(HaveOccurred())
	return &runningAgent{session: session}
}

// stop kills the agent's process, as a node that dies does, and waits
// until it is gone.
func (a *runningAgent) stop() {
	if a.session == nil {
		return
	}
	Eventually(a.session.Kill()).WithTimeout(30 * time.Second).Should(gexec.Exit())
	a.session = nil
}

// hubAs is a client of the hub with the credential of cluster's agent, the
// token it holds now, straight to the hub's address.
func hubAs(cluster string) client.Client {
	GinkgoHelper()
	token, err := os.ReadFile(tokenFiles[cluster])
	Expect(err).NotTo(HaveOccurred())
	cfg := rest.CopyConfig(credentials[cluster])
	cfg.Host = hub.Config.Host
	cfg.BearerToken = string(token)
	c, err := client.New(cfg, client.Options{Scheme: hub.Scheme})
	Expect(err).NotTo(HaveOccurred())
	return c
}
