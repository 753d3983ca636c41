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
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/wavekit-dev/wavekit/internal/agent/register"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/internal/testing/faultproxy"
	"github.com/wavekit-dev/wavekit/internal/testing/fleettest"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

func TestAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "agent")
}

const (
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
	// rotateAt renews an hour's credential after about 7s, for the specs
	// whose agents run in this process and are to run on renewed ones.
	rotateAt = 0.002
	timeout  = fleettest.Timeout
)

// clusterNames name the members: p1, p2 and p3 are pulled (members[0:3],
// each with its agent), c4 and c5 pushed.
var clusterNames = []string{"p1", "p2", "p3", "c4", "c5"}

const pulledClusters = 3

var (
	ctx = context.Background()
	hub *fleettest.Hub
	// members, in the order of clusterNames.
	members []*testcluster.Env
	// agents by cluster name.
	agents = map[string]*runningAgent{}
	// credentials of the agents on the hub, by cluster name: the hub
	// kubeconfigs `wavekit agent register` wrote (agentToken is the token
	// an agent holds now).
	credentials = map[string]*rest.Config{}
	// pods are the agent chart's pods, by cluster name, as this machine
	// runs them.
	pods = map[string]*agentPod{}
	// admin is a kubeconfig of the hub's administrator, for the CLI.
	admin string
	// wavekit is the wavekit binary, built once.
	wavekit string
	// p1Link carries p1's agent's connections to the hub, to cut them.
	p1Link *faultproxy.Proxy
)

var _ = BeforeSuite(func() {
	ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
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
	hub, members = fleettest.Start(testcluster.Options{}, len(clusterNames))

	Expect(<-builtWavekit).To(Succeed())
	Expect(<-builtOperator).To(Succeed())
	Expect(hub.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	hub.StartOperator(operatorBinary, map[string]any{}, GinkgoWriter, "--source", "site="+siteSource())

	hubURL, err := url.Parse(hub.Config.Host)
	Expect(err).NotTo(HaveOccurred())
	p1Link, err = faultproxy.Start(hubURL.Host)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(p1Link.Close)
	admin = filepath.Join(GinkgoT().TempDir(), "hub-admin.kubeconfig")
	Expect(testcluster.WriteKubeconfig(hub.Config, admin)).To(Succeed())
	DeferCleanup(func() {
		for _, a := range agents { // those the specs restarted too
			a.stop()
		}
	})
	for i, name := range clusterNames[:pulledClusters] {
		var hubKubeconfig string
		switch name {
		case "p1": // as a user does, with the CLI, reaching the hub through a link the specs cut
			hubKubeconfig = registerWithCLI(name, "--server", "https://"+p1Link.Addr())
		case "p2": // by the Go API
			hubKubeconfig = registerWithAPI(name)
		default:
			hubKubeconfig = registerWithCLI(name)
		}
		credentials[name], err = clientcmd.BuildConfigFromFlags("", hubKubeconfig)
		Expect(err).NotTo(HaveOccurred())
		pods[name] = installAgentChart(name, members[i], hub.Scheme, hubKubeconfig)
		agents[name] = startAgent(name, fleet.WorkNamespace(ns, name), members[i])
	}
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

// installAgentChart installs the agent chart on member as the docs say:
// the Component CRD of its crds/, the release namespace, the Secret of the
// hub kubeconfig its registration wrote, then every object the chart
// renders for this cluster (its ServiceAccount, RBAC granting what the site
// source deploys, the Deployment); it returns the chart's pod as this
// machine runs it.
func installAgentChart(name string, member *testcluster.Env, scheme *runtime.Scheme, hubKubeconfig string) *agentPod {
	GinkgoHelper()
	var err error
	member.Client, err = client.New(member.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	chartDir := filepath.Join(testcluster.ModuleRoot(), "config", "agent-chart")
	_, err = envtest.InstallCRDs(member.Config, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join(chartDir, "crds")}, ErrorIfPathMissing: true})
	Expect(err).NotTo(HaveOccurred())
	Expect(member.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: agentNamespace}})).To(Succeed())
	kubeconfig, err := os.ReadFile(hubKubeconfig)
	Expect(err).NotTo(HaveOccurred())
	Expect(member.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: agentNamespace, Name: agentRelease + "-hub"},
		Data: map[string][]byte{"kubeconfig": kubeconfig}})).To(Succeed())

	chart, err := loader.Load(chartDir)
	Expect(err).NotTo(HaveOccurred())
	install := action.NewInstall(&action.Configuration{})
	install.ClientOnly, install.DryRun = true, true
	install.ReleaseName, install.Namespace = agentRelease, agentNamespace
	release, err := install.Run(chart, map[string]any{
		"hub":     map[string]any{"namespace": fleet.WorkNamespace(ns, name), "leaseDuration": leaseDuration.String()},
		"sources": []any{map[string]any{"name": "site", "path": siteSource()}},
		// The specs run on renewed tokens.
		"extraArgs": []any{fmt.Sprintf("--rotate-at=%v", rotateAt)},
		"rbac": map[string]any{"extraRules": []any{map[string]any{
			"apiGroups": []any{""}, "resources": []any{"configmaps"},
			"verbs": []any{"get", "list", "watch", "create", "update", "patch", "delete"}}}},
	})
	Expect(err).NotTo(HaveOccurred())
	objects, err := manifests.DecodeObjects("the agent chart", []byte(release.Manifest))
	Expect(err).NotTo(HaveOccurred())
	var deployment appsv1.Deployment
	for _, o := range objects {
		Expect(member.Client.Create(ctx, o)).To(Succeed(), "%s %s", o.GetKind(), o.GetName())
		if o.GetKind() == "Deployment" {
			Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &deployment)).To(Succeed())
		}
	}
	Expect(deployment.Spec.Template.Spec.ServiceAccountName).To(Equal(agentAccount))
	return localPod(member, deployment.Spec.Template.Spec)
}

// agentPod is the agent chart's pod made local: the container's command
// line and environment, with each volume's mount path replaced by a
// directory of this machine that holds what the kubelet would put there,
// and the pod's own cluster reached with a kubeconfig of its
// ServiceAccount's token. A killed agent restarts in the same pod: its
// emptyDirs keep what it wrote.
type agentPod struct {
	args, env []string
	// ready is the URL of the container's readiness probe, on the local
	// port its named port was given.
	ready string
}

// localPod makes spec's one container local (see agentPod), reading the
// Secrets its volumes name from member.
func localPod(member *testcluster.Env, spec corev1.PodSpec) *agentPod {
	GinkgoHelper()
	Expect(spec.Containers).To(HaveLen(1))
	container := spec.Containers[0]
	Expect(container.Command).To(Equal([]string{"/wavekit"}), "the agent image's binary")
	dirs := map[string]string{} // volume name → local directory
	for _, v := range spec.Volumes {
		dir := GinkgoT().TempDir()
		dirs[v.Name] = dir
		switch {
		case v.EmptyDir != nil:
		case v.Secret != nil:
			var secret corev1.Secret
			Expect(member.Client.Get(ctx, client.ObjectKey{Namespace: agentNamespace, Name: v.Secret.SecretName}, &secret)).To(Succeed())
			for _, item := range v.Secret.Items {
				Expect(secret.Data).To(HaveKey(item.Key), "Secret %s", v.Secret.SecretName)
				Expect(os.WriteFile(filepath.Join(dir, item.Path), secret.Data[item.Key], 0o600)).To(Succeed())
			}
		default:
			Fail("the agent's pod has a volume this suite cannot make local: " + v.Name)
		}
	}
	mounts := map[string]string{} // mount path → local directory
	pod := &agentPod{}
	for _, m := range container.VolumeMounts {
		mounts[m.MountPath] = dirs[m.Name]
		if m.MountPath == "/tmp" {
			pod.env = append(pod.env, "TMPDIR="+dirs[m.Name])
		}
	}
	ports := map[string]int{}        // a port's name → the local port it was given
	addresses := map[string]string{} // the container's ":port" → the local address
	for _, p := range container.Ports {
		// A pod has its own network: on this machine each gets its own port.
		ports[p.Name] = freePort()
		addresses[fmt.Sprintf(":%d", p.ContainerPort)] = fmt.Sprintf("127.0.0.1:%d", ports[p.Name])
	}
	if probe := container.ReadinessProbe; probe != nil && probe.HTTPGet != nil {
		Expect(ports).To(HaveKey(probe.HTTPGet.Port.StrVal), "the readiness probe's port is one of the container's")
		pod.ready = fmt.Sprintf("http://127.0.0.1:%d%s", ports[probe.HTTPGet.Port.StrVal], probe.HTTPGet.Path)
	}
	for _, arg := range container.Args {
		pod.args = append(pod.args, localArg(arg, mounts, addresses))
	}
	for _, e := range container.Env {
		switch {
		case e.ValueFrom == nil:
			pod.env = append(pod.env, e.Name+"="+e.Value)
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
			pod.env = append(pod.env, e.Name+"="+agentNamespace)
		case e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.Resource == "limits.memory":
			pod.env = append(pod.env, fmt.Sprintf("%s=%d", e.Name, container.Resources.Limits.Memory().Value()))
		default:
			Fail("the agent's container has a variable this suite cannot make local: " + e.Name)
		}
	}
	cfg, err := operatortest.ServiceAccountConfig(ctx, member.Client, member.Config, agentNamespace, spec.ServiceAccountName)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "in-cluster.kubeconfig")
	Expect(testcluster.WriteKubeconfig(cfg, kubeconfig)).To(Succeed())
	pod.args = append(pod.args, "--kubeconfig", kubeconfig)
	return pod
}

// localArg is a flag --name=value of the container made local: a value
// under a mount path goes under that volume's local directory, a ":port"
// becomes the local address the port was given. Only the value's start is
// looked at: a path that merely contains a mount path (a checkout under
// /tmp) stays as it is.
func localArg(arg string, mounts, addresses map[string]string) string {
	name, value, ok := strings.Cut(arg, "=")
	if !ok {
		return arg
	}
	if address, ok := addresses[value]; ok {
		return name + "=" + address
	}
	for mount, dir := range mounts {
		if rest, ok := strings.CutPrefix(value, mount+"/"); ok {
			return name + "=" + filepath.Join(dir, rest)
		}
	}
	return arg
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

// runningAgent is an agent: a process (session, startAgent), or one
// running in this process (cancel and done, for specs that set what the
// CLI does not, such as when credentials are renewed).
type runningAgent struct {
	session *gexec.Session
	cancel  context.CancelFunc
	done    chan error
}

// startAgent runs the agent chart's pod of cluster name on member (see
// agentPod): `wavekit agent run` as the chart's ServiceAccount there, with
// the chart's arguments — the hub kubeconfig its registration wrote, its
// hub namespace workNS, the Secret it keeps its renewed token in there
// (seeded from that kubeconfig on first start); the suite stops the one in
// agents.
func startAgent(name, workNS string, member *testcluster.Env) *runningAgent {
	GinkgoHelper()
	pod := pods[name]
	Expect(pod).NotTo(BeNil(), "the agent chart is installed on %s", member.Config.Host)
	Expect(pod.args).To(ContainElement("--hub-namespace=" + workNS))
	cmd := exec.Command(wavekit, pod.args...)
	cmd.Env = append(os.Environ(), pod.env...)
	prefix := fmt.Sprintf("[agent %s] ", name)
	session, err := gexec.Start(cmd, gexec.NewPrefixedWriter(prefix, GinkgoWriter), gexec.NewPrefixedWriter(prefix, GinkgoWriter))
	Expect(err).NotTo(HaveOccurred())
	if pod.ready != "" {
		Eventually(func() (int, error) { return probe(pod.ready) }).WithTimeout(timeout).
			Should(Equal(http.StatusOK), "the readiness probe of %s's agent", name)
	}
	return &runningAgent{session: session}
}

// probe is the status code of a GET of url, as a kubelet's HTTP probe.
func probe(url string) (int, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	return resp.StatusCode, nil
}

// freePort is a TCP port of this machine free now.
func freePort() int {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// stop kills the agent's process, as a node that dies does, or cancels
// the agent in this process, and waits until it is gone.
func (a *runningAgent) stop() {
	if a.session != nil {
		Eventually(a.session.Kill()).WithTimeout(30 * time.Second).Should(gexec.Exit())
		a.session = nil
	}
	if a.cancel != nil {
		a.cancel()
		a.cancel = nil
		Eventually(a.done).WithTimeout(30 * time.Second).Should(Receive(Not(HaveOccurred())))
	}
}

// agentToken is the token cluster's agent holds now on the hub: the one
// it keeps in the chart's credentials Secret in its cluster.
func agentToken(cluster string) string {
	GinkgoHelper()
	var secret corev1.Secret
	member := members[slices.Index(clusterNames, cluster)]
	Expect(member.Client.Get(ctx, client.ObjectKey{Namespace: agentNamespace, Name: agentRelease + "-credentials"}, &secret)).To(Succeed())
	return string(secret.Data["token"])
}

// hubAs is a client of the hub with the credential of cluster's agent, the
// token it holds now, straight to the hub's address.
func hubAs(cluster string) client.Client {
	GinkgoHelper()
	cfg := rest.CopyConfig(credentials[cluster])
	cfg.Host = hub.Config.Host
	cfg.BearerToken = agentToken(cluster)
	c, err := client.New(cfg, client.Options{Scheme: hub.Scheme})
	Expect(err).NotTo(HaveOccurred())
	return c
}
