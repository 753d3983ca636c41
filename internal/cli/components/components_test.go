package components_test

import (
	"bytes"
	"context"
	"fmt"
	rbacv1 "k8s.io/api/rbac/v1"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The Component verbs, against Components the real reference operator
// (run in this process, as "wavekit.dev", the CLI's default) reconciles.
var _ = Describe("Component verbs", Ordered, func() {
	var (
		ctx     = context.Background()
		objects client.Client
	)
	BeforeAll(func() {
		scheme := runtime.NewScheme()
		Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
		Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
		Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
		var err error
		objects, err = client.New(clitest.Env.Config, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		mgr, err := ctrl.NewManager(clitest.Env.Config, componenttest.ManagerOptions(scheme))
		Expect(err).NotTo(HaveOccurred())
		_, err = operator.Setup(mgr, operator.Options{Name: "wavekit.dev", Sources: map[string]string{"web": "../testdata/web", "deployment": "../testdata/deployment"}, CacheDir: GinkgoT().TempDir()})
		Expect(err).NotTo(HaveOccurred())
		mgrCtx, cancel := context.WithCancel(ctx)
		DeferCleanup(cancel)
		componenttest.RunManager(mgrCtx, mgr)
	})

	newComponent := func(ns, name string) *v1alpha1.Component {
		GinkgoHelper()
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ComponentSpec{Source: "web"}}
		Expect(objects.Create(ctx, c)).To(Succeed())
		Eventually(func() (string, error) {
			return componenttest.ReadyCondition(ctx, objects, client.ObjectKeyFromObject(c))
		}).
			WithTimeout(60 * time.Second).Should(HavePrefix("True"))
		return c
	}
	read := func(c *v1alpha1.Component) *v1alpha1.Component {
		GinkgoHelper()
		got := &v1alpha1.Component{}
		Expect(objects.Get(ctx, client.ObjectKeyFromObject(c), got)).To(Succeed())
		return got
	}

	It("lists Components and shows one's objects by wave with their live health", func() {
		ns := clitest.NewNamespace()
		newComponent(ns, "shop")
		Expect(clitest.Succeeds("get", "-n", ns)).To(MatchRegexp(
			`^NAME +READY +STATE +AGE +MESSAGE\nshop +True +Ready +\S+ +every object is applied and ready\n$`))
		Expect(clitest.Succeeds("get", "-A")).To(MatchRegexp(`(?m)^` + ns + ` +shop +True +Ready +\S+ +every object is applied and ready$`))

		Expect(clitest.Succeeds("tree", ns+"/shop")).To(MatchRegexp(`^Component ` + ns + `/shop: Ready \(every object is applied and ready\)\n` +
			`WAVE +OBJECT +PHASE +LIVE\n` +
			`0 +ConfigMap ` + ns + `/shop-config +Ready +Current\n` +
			`1 +ConfigMap ` + ns + `/shop-app +Ready +Current\n$`))
		clitest.Succeeds("suspend", ns+"/shop") // else the operator creates it again at once
		Expect(objects.Delete(ctx, clitest.ConfigMap(ns, "shop-app"))).To(Succeed())
		Expect(clitest.Succeeds("tree", "shop", "-n", ns, "-o", "json")).To(ContainSubstring(`"object": "ConfigMap ` + ns + `/shop-app",
    "phase": "Ready",
    "live": "NotFound"`))
		Expect(clitest.Succeeds("get", "-n", ns)).To(MatchRegexp(`(?m)^shop +False +Suspended +\S+ +reconciliation is suspended; objects are left as they are$`))

		r := clitest.Wavekit("tree", ns+"/missing")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal("error: Component " + ns + "/missing not found\n"))
	})

	It("lists ComponentSets and shows a set's clusters by wave with their Components' state", func() {
		ns := clitest.NewNamespace()
		set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: v1alpha1.ComponentSetSpec{
			Template:  v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "elsewhere"}},
			Placement: &v1alpha1.Placement{},
		}}
		Expect(objects.Create(ctx, set)).To(Succeed())
		set.Status = v1alpha1.ComponentSetStatus{ObservedGeneration: 1,
			Rollout: v1alpha1.RolloutStatus{Wave: 1, Waves: 2, Clusters: 2, Updating: 1, Waiting: 1},
			Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Progressing",
				Message: "wave 1 of 2", LastTransitionTime: metav1.Now(), ObservedGeneration: 1}}}
		Expect(objects.Status().Update(ctx, set)).To(Succeed())
		// Components of a source this operator does not serve: it leaves them alone.
		for i, cluster := range []string{"us", "canary"} {
			c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-" + cluster,
				Annotations: map[string]string{"wavekit.dev/set-cluster": cluster, "wavekit.dev/set-wave": strconv.Itoa(2 - i)}},
				Spec: v1alpha1.ComponentSpec{Source: "elsewhere"}}
			Expect(controllerutil.SetControllerReference(set, c, objects.Scheme())).To(Succeed())
			Expect(objects.Create(ctx, c)).To(Succeed())
		}
		Expect(clitest.Succeeds("get", "--sets", "-n", ns)).To(MatchRegexp(
			`^NAME +READY +WAVE +CLUSTERS +AGE +MESSAGE\nweb +False +1/2 +0/2 Ready +\S+ +wave 1 of 2\n$`))
		Expect(clitest.Succeeds("tree", "--set", ns+"/web")).To(MatchRegexp(`^ComponentSet ` + ns + `/web: Progressing, wave 1 of 2 \(wave 1 of 2\)\n` +
			`WAVE +CLUSTER +COMPONENT +READY +STATE +MESSAGE\n` +
			`1 +canary +web-canary +Unknown +\n` +
			`2 +us +web-us +Unknown +\n$`))
		Expect(clitest.Succeeds("tree", "--set", "web", "-n", ns, "-o", "json")).To(ContainSubstring(`"cluster": "canary"`))
		r := clitest.Wavekit("tree", "--set", ns+"/missing")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal("error: ComponentSet " + ns + "/missing not found\n"))
	})

	It("suspends a Component so that the operator leaves an edited object, and resumes it with a reconcile", func() {
		ns := clitest.NewNamespace()
		c := newComponent(ns, "shop")
		before := read(c)
		Expect(clitest.Succeeds("suspend", ns+"/shop")).To(Equal("Component " + ns + "/shop suspended\n"))
		suspended := read(c)
		Expect(suspended.Spec.Suspend).To(BeTrue())
		Expect(suspended.Annotations).To(Equal(before.Annotations), "suspend changes only spec.suspend")
		Eventually(func() string { return clitest.Succeeds("get", ns+"/shop") }).WithTimeout(30*time.Second).
			Should(ContainSubstring("reconciliation is suspended"), "the operator saw the suspension")

		cm := clitest.ConfigMap(ns, "shop-config")
		cm.Data["greeting"] = "edited"
		Expect(objects.Update(ctx, cm)).To(Succeed())
		Consistently(func() string { return clitest.ConfigMap(ns, "shop-config").Data["greeting"] }).
			WithTimeout(2*time.Second).Should(Equal("edited"), "a suspended Component corrects nothing")

		out := clitest.Succeeds("resume", ns+"/shop")
		Expect(out).To(MatchRegexp(`^Component ` + ns + `/shop resumed; reconcile requested at \S+\n$`))
		resumed := read(c)
		Expect(resumed.Spec.Suspend).To(BeFalse())
		Expect(resumed.Annotations).To(HaveKey("wavekit.dev/reconcile-requested-at"))
		Eventually(func() string { return clitest.ConfigMap(ns, "shop-config").Data["greeting"] }).WithTimeout(60 * time.Second).Should(Equal("hello"))
	})

	It("asks for the same RBAC verbs as the status page before it reconciles, suspends or resumes", func() {
		ns := clitest.NewNamespace()
		newComponent(ns, "gated")
		patcher := restrictedKubeconfig(ns, "patcher", "get", "list", "watch", "patch")
		r := clitest.WavekitWith(patcher, "reconcile", ns+"/gated")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring(`you may not reconcile Component ` + ns + `/gated: that needs the RBAC verb "reconcile" on components.wavekit.dev`))
		r = clitest.WavekitWith(patcher, "suspend", ns+"/gated")
		Expect(r.Stderr).To(ContainSubstring(`you may not suspend Component`))
		Expect(read(&v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gated"}}).Spec.Suspend).To(BeFalse())

		operatorRole := restrictedKubeconfig(ns, "operator", "get", "list", "watch", "patch", "reconcile", "suspend")
		r = clitest.WavekitWith(operatorRole, "reconcile", ns+"/gated")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(clitest.WavekitWith(operatorRole, "suspend", ns+"/gated").Code).To(Equal(0))
		r = clitest.WavekitWith(operatorRole, "resume", ns+"/gated")
		Expect(r.Stderr).To(ContainSubstring(`you may not resume Component`), "resume is a verb of its own")
	})

	It("asks for a pass now and waits until the operator handled it", func() {
		ns := clitest.NewNamespace()
		c := newComponent(ns, "shop")
		r := clitest.Wavekit("reconcile", ns+"/shop", "--wait", "--timeout", "60s")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(MatchRegexp(`^Component `+ns+`/shop: reconcile requested at (\S+)\nComponent `+ns+`/shop is Ready: every object is applied and ready\n$`),
			"a pass that finds nothing to change is Ready in the status write that records the request")
		requested := read(c).Annotations["wavekit.dev/reconcile-requested-at"]
		Expect(r.Stdout).To(ContainSubstring(requested))
		Expect(read(c).Status.LastHandledReconcileAt).To(Equal(requested))
		Expect(read(c).Annotations).NotTo(HaveKey("wavekit.dev/force"))

		By("forcing a render with --force, as flux reconcile hr --force")
		r = clitest.Wavekit("reconcile", ns+"/shop", "--wait", "--force", "--timeout", "60s")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(MatchRegexp(`^Component ` + ns + `/shop: forced reconcile requested at \S+\nComponent ` + ns + `/shop is Ready: every object is applied and ready\n$`))
		forced := read(c)
		Expect(forced.Annotations).To(HaveKeyWithValue("wavekit.dev/force", forced.Annotations["wavekit.dev/reconcile-requested-at"]))
		Expect(forced.Status.LastHandledForceAt).To(Equal(forced.Annotations["wavekit.dev/force"]))

		By("failing with a hint when no operator handles the request")
		r = clitest.Wavekit("reconcile", ns+"/shop", "--wait", "--timeout", "2s", "--operator-name", "nobody.dev")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(HavePrefix("error: Component " + ns + "/shop: the operator did not handle the reconcile request within 2s: is it running, and does it watch namespace " + ns + "?"))
		Expect(read(c).Annotations).To(HaveKey("nobody.dev/reconcile-requested-at"))
	})

	// The pass that handles a request writes the request and its own
	// outcome so far: here a wave that waits for a Deployment whose pod
	// stays at its scheduling gate until the test removes it.
	It("waits for the outcome of the requested pass, not only until the operator recorded the request", func() {
		ns := clitest.NewNamespace()
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"}, Spec: v1alpha1.ComponentSpec{Source: "deployment"}}
		Expect(objects.Create(ctx, c)).To(Succeed())
		done := make(chan clitest.Result, 1)
		go func() {
			defer GinkgoRecover()
			done <- clitest.Wavekit("reconcile", ns+"/shop", "--wait", "--timeout", "2m")
		}()
		Eventually(func() bool {
			got := read(c)
			requested := got.Annotations["wavekit.dev/reconcile-requested-at"]
			return requested != "" && got.Status.LastHandledReconcileAt == requested
		}).WithTimeout(time.Minute).Should(BeTrue(), "the operator handled the request")
		Expect(read(c).Status.ReadyCondition().Status).To(Equal(metav1.ConditionFalse), "while the Deployment's pod waits at its gate")
		Consistently(done).WithTimeout(2*time.Second).ShouldNot(Receive(), "handled is not done: the pass waits for a wave")
		clitest.Ungate(ns, "shop")
		var r clitest.Result
		Eventually(done).WithTimeout(90 * time.Second).Should(Receive(&r))
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(MatchRegexp(`^Component ` + ns + `/shop: reconcile requested at \S+\n` +
			`Component ` + ns + `/shop: the operator handled the request; waiting for its outcome \(Processing: waiting for wave 0: apps/Deployment ` + ns + `/shop: .*\)\n` +
			`Component ` + ns + `/shop is Ready: every object is applied and ready\n$`))
		Expect(read(c).Status.ReadyCondition().ObservedGeneration).To(Equal(read(c).Generation))
	})

	It("runs the documented kubectl commands that wait for a requested pass, which return with its outcome", func() {
		ns := clitest.NewNamespace()
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cache"}, Spec: v1alpha1.ComponentSpec{Source: "deployment"}}
		Expect(objects.Create(ctx, c)).To(Succeed())
		block := docShellBlock("docs/component-lifecycle.md", "reconcile-requested-at")
		Expect(block).To(ContainSubstring("component/cache"))
		config := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		kc := testcluster.Kubeconfig(clitest.Env.Config)
		kc.Contexts[kc.CurrentContext].Namespace = ns
		Expect(clientcmd.WriteToFile(*kc, config)).To(Succeed())
		script := exec.Command("bash", "-euo", "pipefail", "-c", block)
		script.Env = append(os.Environ(), "KUBECONFIG="+config, "PATH="+filepath.Dir(kubectlBinary())+string(os.PathListSeparator)+os.Getenv("PATH"))
		var out bytes.Buffer
		script.Stdout, script.Stderr = &out, &out
		Expect(script.Start()).To(Succeed())
		DeferCleanup(func() { _ = script.Process.Kill() })
		done := make(chan error, 1)
		go func() { done <- script.Wait() }()

		Eventually(func() bool {
			got := read(c)
			requested := got.Annotations["wavekit.dev/reconcile-requested-at"]
			return requested != "" && got.Status.LastHandledReconcileAt == requested
		}).WithTimeout(time.Minute).Should(BeTrue(), "the operator handled the request: %s", &out)
		Consistently(done).WithTimeout(2*time.Second).ShouldNot(Receive(), "handled is not done: %s", &out)
		clitest.Ungate(ns, "cache")
		var err error
		Eventually(done).WithTimeout(90 * time.Second).Should(Receive(&err))
		Expect(err).NotTo(HaveOccurred(), out.String())
		Expect(read(c).Status.ReadyCondition().Status).To(Equal(metav1.ConditionTrue))
	})

	It("prints its usage as kubectl wavekit when run as kubectl-wavekit, and installs itself as that plugin", func() {
		var stdout, stderr bytes.Buffer
		Expect(cli.RunAs(ctx, "/usr/local/bin/kubectl-wavekit", []string{"get", "--help"}, &stdout, &stderr)).To(Equal(0))
		Expect(stdout.String()).To(ContainSubstring("Usage:\n  kubectl wavekit get [NAME] [flags]\n"))
		stdout.Reset()
		Expect(cli.RunAs(ctx, "wavekit", []string{"get", "--help"}, &stdout, &stderr)).To(Equal(0))
		Expect(stdout.String()).To(ContainSubstring("Usage:\n  wavekit get [NAME] [flags]\n"))

		dir := GinkgoT().TempDir()
		out := clitest.Succeeds("plugin", "install", "--dir", dir)
		Expect(out).To(ContainSubstring("\ninstalled " + filepath.Join(dir, "kubectl-wavekit") + " -> "))
		self, err := os.Executable()
		Expect(err).NotTo(HaveOccurred())
		self, err = filepath.EvalSymlinks(self)
		Expect(err).NotTo(HaveOccurred())
		Expect(filepath.EvalSymlinks(filepath.Join(dir, "kubectl-wavekit"))).To(Equal(self))
		Expect(clitest.Succeeds("plugin", "install", "--dir", dir)).To(ContainSubstring("links to " + self + " already"))

		other := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(other, "kubectl-wavekit"), []byte("#!/bin/sh\n"), 0o755)).To(Succeed())
		r := clitest.Wavekit("plugin", "install", "--dir", other)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("exists and is not a link to"))
	})
})

// docShellBlock is the first shell block of the module's page that
// contains text.
func docShellBlock(page, text string) string {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(testcluster.ModuleRoot(), page))
	Expect(err).NotTo(HaveOccurred())
	for _, part := range strings.Split(string(data), "```sh\n")[1:] {
		block, _, _ := strings.Cut(part, "```")
		if strings.Contains(block, text) {
			return block
		}
	}
	Fail(fmt.Sprintf("%s has no shell block with %s", page, text))
	return ""
}

// kubectlBinary is kubectl from PATH, else the one hack/kubectl builds.
func kubectlBinary() string {
	GinkgoHelper()
	kubectl, err := operatortest.Kubectl(testcluster.ModuleRoot(), GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	return kubectl
}

// restrictedKubeconfig writes the kubeconfig of a ServiceAccount of
// namespace that has verbs on the Components there, and returns its path.
func restrictedKubeconfig(namespace, name string, verbs ...string) string {
	GinkgoHelper()
	ctx := context.Background()
	meta := metav1.ObjectMeta{Namespace: namespace, Name: name}
	Expect(clitest.Env.Client.Create(ctx, &rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"wavekit.dev"}, Resources: []string{"components"}, Verbs: verbs}}})).To(Succeed())
	Expect(clitest.Env.Client.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: meta,
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: namespace, Name: name}}})).To(Succeed())
	cfg, err := operatortest.ServiceAccountConfig(ctx, clitest.Env.Client, clitest.Env.Config, namespace, name)
	Expect(err).NotTo(HaveOccurred())
	path := filepath.Join(GinkgoT().TempDir(), name+".kubeconfig")
	Expect(testcluster.WriteKubeconfig(cfg, path)).To(Succeed())
	return path
}
