// Package agent_test runs pulled clusters as a user runs them: a hub (a
// local cluster) with the operator binary under the chart's RBAC, and
// member clusters (bare API servers) whose agents run in this process with
// only the hub's address and their own credential — the hub is given no
// kubeconfig of them. One member is pushed, for a set over both kinds.
package agent_test

import (
	"bytes"
	"context"
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
	"github.com/wavekit-dev/wavekit/internal/agent"
	"github.com/wavekit-dev/wavekit/internal/agent/register"
	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/internal/operator"
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
	// ns is the namespace of the sets and cluster Secrets on the hub, and
	// of the Components on the members.
	ns = "fleet"
	// leaseDuration is the agents' Lease: short, so that a stopped agent
	// is Unknown within seconds.
	leaseDuration = 3 * time.Second
	// rotateAt renews an hour's token after about 7s, so that the specs
	// run on renewed tokens.
	rotateAt = 0.002
	timeout  = 90 * time.Second
)

var (
	ctx = context.Background()
	hub *testcluster.Env
	// members: p1 and p2 run agents, c3 is pushed.
	members []*testcluster.Env
	// agents by cluster name.
	agents = map[string]*runningAgent{}
	// credentials of the agents on the hub, by cluster name, and the files
	// of their tokens, which they renew.
	credentials = map[string]*rest.Config{}
	tokenFiles  = map[string]string{}
	// admin is a kubeconfig of the hub's administrator, for the CLI.
	admin string
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
		members, err = testcluster.StartClusters(3)
		started <- err
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
	for _, m := range members[:2] { // the pulled members run Components
		m.Client, err = client.New(m.Config, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		_, err = envtest.InstallCRDs(m.Config, envtest.CRDInstallOptions{
			Paths: []string{filepath.Join(testcluster.ModuleRoot(), "config", "crd", "bases")}, ErrorIfPathMissing: true})
		Expect(err).NotTo(HaveOccurred())
	}

	binary, err := operatortest.BuildOperator(testcluster.ModuleRoot(), GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	for _, name := range []string{operatorNamespace, ns} {
		Expect(hub.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
	}
	Expect(operatortest.ApplyRBAC(ctx, hub.Client, testcluster.ModuleRoot(), "wavekit", operatorNamespace, map[string]any{})).To(Succeed())
	operatorConfig, err := operatortest.ServiceAccountConfig(ctx, hub.Client, hub.Config, operatorNamespace, operatorAccount)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(operatorConfig, kubeconfig)).To(Succeed())
	cmd := exec.Command(binary, "--kubeconfig", kubeconfig, "--source", "site="+siteSource(),
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0")
	session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Terminate().Wait(10 * time.Second) })

	hubURL, err := url.Parse(hub.Config.Host)
	Expect(err).NotTo(HaveOccurred())
	p1Link, err = faultproxy.Start(hubURL.Host)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(p1Link.Close)
	admin = filepath.Join(GinkgoT().TempDir(), "hub-admin.kubeconfig")
	Expect(testcluster.WriteKubeconfig(hub.Config, admin)).To(Succeed())
	for i, name := range []string{"p1", "p2"} {
		// p1 is registered by the Go API, p2 as a user does, with the CLI.
		workNS := fleet.WorkNamespace(ns, name)
		if name == "p1" {
			_, err := register.Register(ctx, hub.Client, register.Cluster{Namespace: ns, Name: name,
				Labels: map[string]string{"fleet": "demo", "wave": waveOf(name)}})
			Expect(err).NotTo(HaveOccurred())
			credentials[name], err = register.Credential(ctx, hub.Client, hub.Config, workNS, time.Hour)
			Expect(err).NotTo(HaveOccurred())
		} else {
			credentials[name] = registerWithCLI(admin, name)
		}
		tokenFiles[name] = filepath.Join(GinkgoT().TempDir(), name+".token")
		Expect(os.WriteFile(tokenFiles[name], []byte(credentials[name].BearerToken), 0o600)).To(Succeed())
		agents[name] = startAgent(name, workNS, members[i])
	}
	DeferCleanup(func() {
		for _, a := range agents { // those the specs restarted too
			a.stop()
		}
	})
	secret, err := members[2].KubeconfigSecret(ns, "c3", map[string]string{"wavekit.dev/cluster": "true", "fleet": "demo", "wave": "main"})
	Expect(err).NotTo(HaveOccurred())
	Expect(hub.Client.Create(ctx, secret)).To(Succeed())
})

// registerWithCLI registers cluster with wavekit agent register and
// returns the configuration of the kubeconfig it wrote for the agent.
func registerWithCLI(admin, cluster string) *rest.Config {
	GinkgoHelper()
	out := filepath.Join(GinkgoT().TempDir(), cluster+"-hub.kubeconfig")
	var stdout, stderr bytes.Buffer
	root := cli.NewRootCommand(&stdout, &stderr)
	root.SetArgs([]string{"--kubeconfig", admin, "agent", "register", ns + "/" + cluster,
		"-l", "fleet=demo", "-l", "wave=" + waveOf(cluster), "--token-lifetime", "1h", "-o", out})
	Expect(root.ExecuteContext(ctx)).To(Succeed(), stderr.String())
	Expect(stdout.String()).To(ContainSubstring("its namespace on the hub is " + fleet.WorkNamespace(ns, cluster)))
	cfg, err := clientcmd.BuildConfigFromFlags("", out)
	Expect(err).NotTo(HaveOccurred())
	Expect(cfg.CertData).To(BeEmpty(), "the agent's kubeconfig holds its token, no admin's certificate")
	Expect(cfg.BearerToken).NotTo(BeEmpty())
	return cfg
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

// runningAgent is an agent running in this process.
type runningAgent struct {
	cancel context.CancelFunc
	done   chan error
}

// startAgent runs the agent of cluster name, with only the hub's address
// and its own credential, on member; the suite stops the one in agents.
func startAgent(name, workNS string, member *testcluster.Env) *runningAgent {
	GinkgoHelper()
	runCtx, cancel := context.WithCancel(ctx)
	a := &runningAgent{cancel: cancel, done: make(chan error, 1)}
	opts := agent.Options{Hub: rest.CopyConfig(credentials[name]), Namespace: workNS, Local: member.Config,
		LeaseDuration: leaseDuration, Holder: name, TokenFile: tokenFiles[name], RotateAt: rotateAt,
		Operator: operator.Options{Name: "wavekit.dev", Sources: map[string]string{"site": siteSource()}, CacheDir: GinkgoT().TempDir()}}
	if name == "p1" {
		opts.Hub.Host = "https://" + p1Link.Addr()
	}
	go func() { a.done <- agent.Run(runCtx, opts) }()
	return a
}

// stop stops the agent and waits until it returned.
func (a *runningAgent) stop() {
	if a.cancel == nil {
		return
	}
	a.cancel()
	a.cancel = nil
	Eventually(a.done).WithTimeout(30 * time.Second).Should(Receive(Not(HaveOccurred())))
}

// hubAs is a client of the hub with the credential of cluster's agent.
func hubAs(cluster string) client.Client {
	GinkgoHelper()
	token, err := os.ReadFile(tokenFiles[cluster]) // the agent's current one
	Expect(err).NotTo(HaveOccurred())
	cfg := rest.CopyConfig(credentials[cluster])
	cfg.BearerToken = string(token)
	c, err := client.New(cfg, client.Options{Scheme: hub.Scheme})
	Expect(err).NotTo(HaveOccurred())
	return c
}
