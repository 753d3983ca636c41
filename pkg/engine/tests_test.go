package engine_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Tests (<name>/test-hook) on the bare API server: ConfigMaps pass as soon
// as they exist and fail by a CEL health check, a Pod never leaves Pending
// (there is no scheduler), and a Widget is ready once the test, playing the
// controller of its own test type, sets its Ready condition. Jobs under the
// real controllers are in test/helm.
var _ = Describe("test runs", func() {
	var (
		ctx context.Context
		ns  string
		h   *harness
	)
	BeforeEach(func() {
		ctx, ns, h = newSpec("tests")
	})
	test := func(name, order, policy string, data map[string]string) *corev1.ConfigMap {
		return configMap(ns, name, data, "test-hook", policy, "apply-order", order)
	}
	passPass := func(run string, objects ...any) engine.TestResult {
		GinkgoHelper()
		return runUntilOver(ctx, h, run, time.Time{}, objects...)
	}

	It("leaves tests out of Apply, runs them one at a time in apply-order and name order, and deletes those its policy deletes once the run passed", func() {
		objects := []any{configMap(ns, "app", nil),
			test("b-check", "0", "keep", nil), test("a-check", "0", "delete-on-success", nil), test("first", "-1", "delete", nil)}
		h.applyUntilDone(ctx, objects...)
		Expect(itemKeys(h.inventory)).To(ConsistOf("ConfigMap " + ns + "/app"))
		Expect(getConfigMap(ctx, ns, "first")).To(BeNil(), "Apply created a test")

		res := passPass("run-1", objects...)
		Expect(actionsOf(res.Result)).To(Equal([]string{
			"Created ConfigMap " + ns + "/first", "Created ConfigMap " + ns + "/a-check", "Created ConfigMap " + ns + "/b-check",
			"Deleted ConfigMap " + ns + "/first", "Deleted ConfigMap " + ns + "/a-check",
		}))
		Expect(res.Tests).To(HaveEach(HaveField("Phase", engine.TestPassed)))
		Expect(getConfigMap(ctx, ns, "a-check")).To(BeNil())
		kept := getConfigMap(ctx, ns, "b-check")
		Expect(kept).NotTo(BeNil())
		Expect(itemKeys(h.inventory)).To(ConsistOf("ConfigMap "+ns+"/app", "ConfigMap "+ns+"/b-check"))

		h.applyUntilDone(ctx, objects...)
		Expect(getConfigMap(ctx, ns, "b-check").UID).To(Equal(kept.UID), "Apply pruned or rewrote a test")
		Expect(itemKeys(h.inventory)).To(ContainElement("ConfigMap " + ns + "/b-check"))

		passPass("run-2", objects...)
		Expect(getConfigMap(ctx, ns, "b-check").UID).NotTo(Equal(kept.UID), "the next run creates its tests anew")
	})

	It("stops at a failed test: the tests after it do not run, passed ones with delete-on-success go, the failed one stays or goes as its policy says", func() {
		h.owner.HealthChecks = []manifests.HealthCheck{{APIVersion: "v1", Kind: "ConfigMap", Failed: "self.data.result == 'fail'"}}
		for _, policy := range []string{"keep", "delete-on-failure"} {
			objects := []any{test("t1", "0", "delete-on-success", nil), test("t2", "1", policy, map[string]string{"result": "fail"}),
				test("t3", "2", "keep", nil)}
			res := passPass("run-"+policy, objects...)
			failed, ok := res.Failed()
			Expect(ok).To(BeTrue())
			Expect(failed.String()).To(Equal("ConfigMap " + ns + "/t2 failed: health check failed: self.data.result == 'fail'"))
			Expect(res.Tests[2].Phase).To(Equal(engine.TestPending))
			Expect(getConfigMap(ctx, ns, "t3")).To(BeNil(), "a test after the failed one ran")
			Expect(getConfigMap(ctx, ns, "t1")).To(BeNil(), "hook-succeeded: deleted after a run that failed later, as helm test does")
			Expect(getConfigMap(ctx, ns, "t2") != nil).To(Equal(policy == "keep"), policy)
		}
	})

	It("fails a test still running at the deadline, and deletes it when its policy says so", func() {
		pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "slow", Annotations: annotations("test-hook", "delete-on-failure")},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}
		res, err := h.test(ctx, "run", time.Time{}, pod)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())
		Expect(res.Tests).To(ConsistOf(HaveField("Phase", engine.TestRunning)))
		Expect(res.Waiting).To(ConsistOf(HaveField("Reason", "test running: pod Pending")))

		res = runUntilOver(ctx, h, "run", time.Now(), pod)
		Expect(res.Tests[0].String()).To(Equal("Pod " + ns + "/slow failed: did not finish in time (pod Pending)"))
		Expect(get(ctx, "v1", "Pod", ns, "slow")).To(BeNil())
	})

	It("never creates a test twice in one run: one deleted before a pass saw it finish counts by the state it was deleted in, else as failed", func() {
		informer, err := h.target.Cache.GetInformer(ctx, widget(ns, "x"), cache.BlockUntilSynced(true))
		Expect(err).NotTo(HaveOccurred())
		gone := make(chan string, 2)
		_, err = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
			if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			h.applier.ObjectGone(obj.(client.Object)) // as the operator's and the CLI's event handlers do
			gone <- obj.(client.Object).GetName()
		}})
		Expect(err).NotTo(HaveOccurred())
		for _, ready := range []bool{true, false} {
			name := map[bool]string{true: "finished", false: "unfinished"}[ready]
			w := widget(ns, name, "test-hook", "keep", "status-hint", "has-ready-condition")
			res, err := h.test(ctx, "run-"+name, time.Time{}, w)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Tests[0].Phase).To(Equal(engine.TestRunning))
			if ready {
				setReady(ctx, w, true)
			}
			live := get(ctx, w.GetAPIVersion(), "Widget", ns, name)
			Eventually(func() string { return cachedVersion(ctx, h, live) }).Should(Equal(live.GetResourceVersion()))
			Expect(env.Client.Delete(ctx, live)).To(Succeed())
			Eventually(gone).WithTimeout(10 * time.Second).Should(Receive(Equal(name)))

			res = runUntilOver(ctx, h, "run-"+name, time.Time{}, w)
			Expect(get(ctx, w.GetAPIVersion(), "Widget", ns, name)).To(BeNil(), "created again in the same run")
			if ready {
				Expect(res.Tests[0].Phase).To(Equal(engine.TestPassed))
			} else {
				Expect(res.Tests[0].String()).To(HavePrefix("test.wavekit.dev/Widget " + ns + "/unfinished failed: deleted before it finished"))
			}
		}
	})

	It("deletes the test of an earlier run that left the render", func() {
		passPass("run-1", test("old", "0", "keep", nil))
		Expect(getConfigMap(ctx, ns, "old")).NotTo(BeNil())
		res := passPass("run-2", test("new", "0", "keep", nil))
		Expect(actionsOf(res.Result)).To(Equal([]string{"Created ConfigMap " + ns + "/new", "Deleted ConfigMap " + ns + "/old"}))
		Expect(itemKeys(h.inventory)).To(ConsistOf("ConfigMap " + ns + "/new"))
	})

	It("refuses an object that is both a delete hook and a test, before writing anything", func() {
		h.counter.Reset()
		_, err := h.test(ctx, "run", time.Time{}, configMap(ns, "both", nil, "test-hook", "keep", "delete-hook", "pre-delete"))
		Expect(err).To(MatchError(ContainSubstring("annotations test.wavekit.dev/delete-hook and test.wavekit.dev/test-hook exclude each other")))
		Expect(h.counter.Writes()).To(BeZero())
	})
})

// test runs one pass of test run run and keeps the inventory.
func (h *harness) test(ctx context.Context, run string, deadline time.Time, objects ...any) (engine.TestResult, error) {
	res, err := h.applier.Test(ctx, h.owner, toObjects(objects), h.inventory, engine.TestOptions{Run: run, Deadline: deadline, Save: h.save})
	h.inventory = res.Inventory
	return res, err
}

// runUntilOver repeats the passes of a test run until it is over.
func runUntilOver(ctx context.Context, h *harness, run string, deadline time.Time, objects ...any) engine.TestResult {
	GinkgoHelper()
	var res engine.TestResult
	Eventually(func() (bool, error) {
		var err error
		res, err = h.test(ctx, run, deadline, objects...)
		return res.Done, err
	}).WithTimeout(30 * time.Second).WithPolling(50 * time.Millisecond).Should(BeTrue())
	return res
}

// cachedVersion is the resourceVersion of obj in the harness's cache, "" when
// the cache does not hold it.
func cachedVersion(ctx context.Context, h *harness, obj *unstructured.Unstructured) string {
	cached := &unstructured.Unstructured{}
	cached.SetGroupVersionKind(obj.GroupVersionKind())
	if err := h.target.Cache.Get(ctx, client.ObjectKeyFromObject(obj), cached); err != nil {
		return ""
	}
	return cached.GetResourceVersion()
}
