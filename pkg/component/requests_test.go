package component_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/jsonpath"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("a pass on request", func() {
	var (
		ctx context.Context
		ns  string
	)
	BeforeEach(func() {
		ctx = context.Background()
		ns = newNamespace(ctx)
	})

	It("runs a pass for each new reconcile-requested-at value and records it, rendering nothing while the inputs are unchanged; a new force value renders anew", func() {
		h := startOperator(ctx, ns, component.ReconcilerOptions{})
		values := configMapValues(3)
		values["random"] = "password"
		c := newComponent(ns, "asked", values)
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		expectNoOpPass(ctx, h, c)
		before := settledRenders(h)
		password := getConfigMap(ctx, ns, "password").Data["value"]

		h.counter.Reset()
		annotate(ctx, c, component.AnnotationReconcileRequestedAt, "first")
		eventually(func() string { return getComponent(ctx, c).Status.LastHandledReconcileAt }).Should(Equal("first"))
		Consistently(h.generator.renders).WithTimeout(2*time.Second).Should(Equal(before), "the same inputs, no new render")
		Expect(h.counter.Writes()).To(Equal(1), "only the status write that records the request: %s", h.counter)
		Expect(h.counter.Count("update", "components/status")).To(Equal(1), h.counter.String())
		Expect(readyCondition(ctx, c)).To(HavePrefix("True/Ready"))
		Expect(getConfigMap(ctx, ns, "password").Data["value"]).To(Equal(password), "a random value stays")

		update(ctx, c, func(c *v1alpha1.Component) { c.Annotations["someone/else"] = "edited" })
		Consistently(h.generator.renders).WithTimeout(2*time.Second).Should(Equal(before), "an unrelated annotation edit, the same request value kept")

		annotate(ctx, c, component.AnnotationForce, "render-again")
		eventually(func() string { return getComponent(ctx, c).Status.LastHandledForceAt }).Should(Equal("render-again"))
		Consistently(h.generator.renders).WithTimeout(2*time.Second).Should(Equal(before+1), "exactly one render for the force value")
		Expect(getConfigMap(ctx, ns, "password").Data["value"]).NotTo(Equal(password), "a forced render makes a new random value")
	})

	It("lets kubectl wait for status.lastHandledReconcileAt", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "waited", configMapValues(1))
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))

		expression := "jsonpath={.status.lastHandledReconcileAt}=2026-11-23T23:00:00Z"
		Expect(jsonPathMet(ctx, c, expression)).To(BeFalse(), "not before the request")
		// Fully qualified: other specs install a stale Component CRD of another group.
		kubectl, found := startKubectlWait(ns, "components.wavekit.dev/waited", expression)
		annotate(ctx, c, component.AnnotationReconcileRequestedAt, "2026-11-23T23:00:00Z")
		eventually(func() bool { return jsonPathMet(ctx, c, expression) }).Should(BeTrue())
		if found {
			var result kubectlResult
			Eventually(kubectl).WithTimeout(90*time.Second).Should(Receive(&result), "kubectl wait --for=%s", expression)
			Expect(result.err).NotTo(HaveOccurred(), result.out)
			Expect(result.out).To(Equal("component.wavekit.dev/waited condition met\n"))
		}
	})

	It("writes every object once on a new force value, except reconcile-policy once and purged ones, records it and does not force again", func() {
		h := startOperator(ctx, ns, component.ReconcilerOptions{})
		values := configMapValues(3)
		values["configMaps"].(map[string]any)["seed"] = map[string]any{
			"data": map[string]any{"k": "rendered"}, "annotations": map[string]any{manifests.AnnotationReconcilePolicy: "once"},
		}
		values["configMaps"].(map[string]any)["purged"] = map[string]any{
			"annotations": map[string]any{manifests.AnnotationPurgeOrder: "0"},
		}
		c := newComponent(ns, "forced", values)
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		Expect(getConfigMap(ctx, ns, "purged")).To(BeNil())
		// Out of band: a key drift detection does not look at (it is not
		// rendered) added with kubectl edit, and a change to the object
		// created once.
		editConfigMapAs(ctx, ns, "cm-0000", "kubectl-edit", func(data map[string]string) { data["added"] = "by hand" })
		editConfigMap(ctx, ns, "seed", func(data map[string]string) { data["k"] = "by hand" })
		expectNoOpPass(ctx, h, c)
		Expect(getConfigMap(ctx, ns, "cm-0000").Data).To(HaveKeyWithValue("added", "by hand"), "not drift")

		h.counter.Reset()
		annotate(ctx, c, component.AnnotationForce, "f1")
		eventually(func() string { return getComponent(ctx, c).Status.LastHandledForceAt }).Should(Equal("f1"))
		Expect(h.counter.Count("apply", "configmaps")).To(Equal(3), "the three ConfigMaps, not the one created once, nor the purged one: %s", h.counter)
		Expect(h.counter.Count("create", "configmaps")).To(BeZero(), "the purged one stays gone: %s", h.counter)
		Expect(getConfigMap(ctx, ns, "purged")).To(BeNil())
		Expect(getConfigMap(ctx, ns, "cm-0000").Data).NotTo(HaveKey("added"), "taken over from kubectl edit and removed")
		Expect(getConfigMap(ctx, ns, "seed").Data).To(HaveKeyWithValue("k", "by hand"))
		Expect(readyCondition(ctx, c)).To(HavePrefix("True/Ready"))

		// The next pass, with the force value still on the component, writes nothing.
		editConfigMap(ctx, ns, "cm-0000", func(data map[string]string) { data["added"] = "again" })
		h.counter.Reset()
		annotate(ctx, c, component.AnnotationReconcileRequestedAt, "after-force")
		eventually(func() string { return getComponent(ctx, c).Status.LastHandledReconcileAt }).Should(Equal("after-force"))
		Expect(h.counter.Count("apply", "configmaps")).To(BeZero(), h.counter.String())
		Expect(getConfigMap(ctx, ns, "cm-0000").Data).To(HaveKeyWithValue("added", "again"))
	})

	It("answers a request to a suspended component without applying, and keeps a force for when it resumes", func() {
		h := startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "paused", configMapValues(2))
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		update(ctx, c, func(c *v1alpha1.Component) { c.Spec.Suspend = true })
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("False/Suspended"))

		h.counter.Reset()
		update(ctx, c, func(c *v1alpha1.Component) {
			c.Annotations = map[string]string{
				operator + "/" + component.AnnotationForce:                "f1",
				operator + "/" + component.AnnotationReconcileRequestedAt: "while-suspended",
			}
		})
		eventually(func() string { return getComponent(ctx, c).Status.LastHandledReconcileAt }).Should(Equal("while-suspended"))
		Expect(getComponent(ctx, c).Status.LastHandledForceAt).To(BeEmpty())
		Expect(h.counter.Count("apply", "configmaps")).To(BeZero(), h.counter.String())

		update(ctx, c, func(c *v1alpha1.Component) { c.Spec.Suspend = false })
		eventually(func() string { return getComponent(ctx, c).Status.LastHandledForceAt }).Should(Equal("f1"))
		Expect(h.counter.Count("apply", "configmaps")).To(Equal(2), h.counter.String())
	})
})

// expectNoOpPass waits until a reconcile of c sends no request at all.
func expectNoOpPass(ctx context.Context, h *operatorHarness, c *v1alpha1.Component) {
	GinkgoHelper()
	// The manager may be reconciling the same component at the same time;
	// the status write's optimistic lock turns that into a conflict.
	eventually(func() (map[string]int, error) {
		h.counter.Reset()
		_, err := h.reconciler.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(c)})
		return h.counter.Snapshot(), err
	}).Should(BeEmpty())
}

// settledRenders returns the render count once no reconcile is in flight.
func settledRenders(h *operatorHarness) int {
	GinkgoHelper()
	before := h.generator.renders()
	Consistently(h.generator.renders).WithTimeout(time.Second).Should(Equal(before))
	return before
}

// annotate sets the component annotation <operator>/suffix.
func annotate(ctx context.Context, c *v1alpha1.Component, suffix, value string) {
	GinkgoHelper()
	update(ctx, c, func(c *v1alpha1.Component) {
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[operator+"/"+suffix] = value
	})
}

// editConfigMap sets one data key of a ConfigMap, as a person would.
// jsonPathMet evaluates a kubectl wait condition "jsonpath={path}=value" on
// c the way kubectl wait does, with the jsonpath package kubectl uses
// (k8s.io/client-go/util/jsonpath, missing keys allowed): met when the path
// yields exactly one value whose text is value.
func jsonPathMet(ctx context.Context, c *v1alpha1.Component, condition string) bool {
	GinkgoHelper()
	expression, ok := strings.CutPrefix(condition, "jsonpath=")
	Expect(ok).To(BeTrue(), condition)
	path, want, ok := strings.Cut(expression, "=")
	Expect(ok).To(BeTrue(), condition)
	parser := jsonpath.New("wait").AllowMissingKeys(true)
	Expect(parser.Parse(path)).To(Succeed())
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("Component"))
	Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), u)).To(Succeed())
	results, err := parser.FindResults(u.Object)
	Expect(err).NotTo(HaveOccurred())
	if len(results) != 1 || len(results[0]) != 1 {
		return false
	}
	return fmt.Sprint(results[0][0].Interface()) == want
}

// kubectlResult is how a kubectl command ended, and what it printed.
type kubectlResult struct {
	err error
	out string
}

// startKubectlWait starts kubectl wait --for=condition on resource, when a
// kubectl binary is on the PATH, and returns a channel that receives its
// result (found false otherwise: the caller checks the condition with
// jsonPathMet alone).
func startKubectlWait(ns, resource, condition string) (<-chan kubectlResult, bool) {
	GinkgoHelper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		AddReportEntry("kubectl not on the PATH: the wait condition is checked with k8s.io/client-go/util/jsonpath only")
		return nil, false
	}
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())
	out := &bytes.Buffer{}
	cmd := exec.Command(path, "--kubeconfig", kubeconfig, "-n", ns, "wait", "--for="+condition, "--timeout=80s", resource)
	cmd.Stdout, cmd.Stderr = out, out
	Expect(cmd.Start()).To(Succeed())
	done := make(chan kubectlResult, 1)
	go func() {
		err := cmd.Wait()
		done <- kubectlResult{err: err, out: out.String()}
	}()
	DeferCleanup(func() { _ = cmd.Process.Kill() })
	return done, true
}
