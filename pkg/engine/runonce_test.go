package engine_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// runOnceSpecs are the specs of Jobs that are gone before a pass saw them
// finish, on the cluster with controllers: the TTL-after-finished controller
// deletes a Job with ttlSecondsAfterFinished: 0 as soon as the Job
// controller marks it finished. A Job runs at most once per render; the
// passes are made every 50 ms, as events would make a reconciler make them,
// so that one comes between the Job's completion and its deletion now and
// then. A watch counts the Jobs created.
func runOnceSpecs(clusterOf func() *testcluster.Env, setUp func(string) (string, *harness)) {
	ctx := context.Background()

	// applyUntil repeats Apply until the pass is Done or fails, and returns
	// its error.
	applyUntil := func(h *harness, objects ...any) error {
		var err error
		Eventually(func() bool {
			var res engine.Result
			res, err = h.apply(ctx, objects...)
			return res.Done || err != nil
		}).WithTimeout(clusterTimeout).WithPolling(50 * time.Millisecond).Should(BeTrue())
		return err
	}

	It("creates a Job that the cluster deletes as it completes once per render, over 10 renders", func() {
		ns, h := setUp("ttl-job")
		runs := countJobs(ctx, clusterOf(), ns)
		for render := 1; render <= 10; render++ {
			Expect(applyUntil(h, ttlJob(ns, "migrate", render))).To(Succeed())
			Expect(h.item("Job", "migrate")).To(HaveField("Phase", BeElementOf(manifests.PhaseReady, manifests.PhaseCompleted)),
				"seen complete, or gone after it completed")
			Eventually(func() int { return runs.of("migrate") }).WithTimeout(10*time.Second).Should(Equal(render), "render %d", render)
		}
		Eventually(func() bool { return getIn(ctx, clusterOf().Client, &batchv1.Job{}, ns, "migrate") }).
			WithTimeout(clusterTimeout).Should(BeFalse())
		for range 5 {
			Expect(applyUntil(h, ttlJob(ns, "migrate", 10))).To(Succeed())
		}
		Eventually(func() int { return runs.of("migrate") }).WithTimeout(10*time.Second).Should(Equal(10), "a pass after the Job went does not run it again")
	})

	// Seen once in make test: a status write that failed (a conflict with
	// an upgrade) lost the record of a hook Job created at the new render;
	// the next pass read the item of the earlier render, found the Job gone
	// by its TTL, and created it a second time.
	It("creates a Job once per render when the record of its creation was lost with the status that carried it", func() {
		ns, h := setUp("lost-record")
		runs := countJobs(ctx, clusterOf(), ns)
		Expect(applyUntil(h, ttlJob(ns, "migrate", 1))).To(Succeed())
		Eventually(func() int { return runs.of("migrate") }).WithTimeout(10 * time.Second).Should(Equal(1))
		Eventually(func() bool { return getIn(ctx, clusterOf().Client, &batchv1.Job{}, ns, "migrate") }).
			WithTimeout(clusterTimeout).Should(BeFalse(), "render 1's Job is gone: the next pass creates render 2's")
		earlier := make([]manifests.InventoryItem, len(h.inventory))
		for i := range h.inventory {
			earlier[i] = *h.inventory[i].DeepCopy()
		}

		// Passes at render 2 until one ran its Job: one that still saw
		// render 1's Job in its cache leaves it to the next.
		Eventually(func() int {
			_, err := h.apply(ctx, ttlJob(ns, "migrate", 2))
			Expect(err).NotTo(HaveOccurred())
			return runs.of("migrate")
		}).WithTimeout(clusterTimeout).Should(Equal(2), "a pass ran render 2's Job")
		Expect(h.item("Job", "migrate")).To(HaveField("Ran", BeTrue()))
		h.inventory = earlier // the status that recorded it was not written
		Eventually(func() bool { return getIn(ctx, clusterOf().Client, &batchv1.Job{}, ns, "migrate") }).
			WithTimeout(clusterTimeout).Should(BeFalse(), "the TTL-after-finished controller deletes the finished Job")

		Expect(applyUntil(h, ttlJob(ns, "migrate", 2))).To(Succeed())
		Expect(h.item("Job", "migrate")).To(And(HaveField("Ran", BeTrue()), HaveField("Digest", Not(Equal(earlier[0].Digest)))))
		Consistently(func() int { return runs.of("migrate") }).WithTimeout(3*time.Second).Should(Equal(2), "render 2's Job ran once: %v", runs)

		Expect(applyUntil(h, ttlJob(ns, "migrate", 3))).To(Succeed())
		Eventually(func() int { return runs.of("migrate") }).WithTimeout(10*time.Second).Should(Equal(3), "a new render runs it again")
	})

	It("fails the pass when a Job is deleted before it finished, and does not create it again", func() {
		ns, h := setUp("cut-job")
		runs := countJobs(ctx, clusterOf(), ns)
		job := heldJob(ns, "migrate")
		Eventually(func() []corev1.Pod {
			_, err := h.apply(ctx, job)
			Expect(err).NotTo(HaveOccurred())
			return podsIn(ctx, clusterOf().Client, ns)
		}).WithTimeout(clusterTimeout).Should(HaveExactElements(HaveField("Status.Phase", corev1.PodRunning)))

		Expect(clusterOf().Client.Delete(ctx, job.DeepCopy(), client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed())
		Expect(applyUntil(h, job)).To(MatchError(ContainSubstring(
			"batch/Job " + ns + "/migrate failed: deleted before it finished; not run again for this render")))
		for range 5 {
			_, err := h.apply(ctx, job)
			Expect(err).To(MatchError(ContainSubstring("deleted before it finished")))
		}
		Expect(getIn(ctx, clusterOf().Client, &batchv1.Job{}, ns, "migrate")).To(BeFalse())
		Eventually(func() int { return runs.of("migrate") }).WithTimeout(10 * time.Second).Should(Equal(1))
	})

	It("counts a Job that finished and went while no applier watched (a restart) as done, and says it was not seen", func() {
		ns, h := setUp("unseen-job")
		runs := countJobs(ctx, clusterOf(), ns)
		job := heldJob(ns, "migrate")
		job.Spec.TTLSecondsAfterFinished = ptr.To(int32(0))
		Eventually(func() []corev1.Pod {
			_, err := h.apply(ctx, job)
			Expect(err).NotTo(HaveOccurred())
			return podsIn(ctx, clusterOf().Client, ns)
		}).WithTimeout(clusterTimeout).Should(HaveExactElements(HaveField("Status.Phase", corev1.PodRunning)))

		restarted := newHarnessOn(ctx, clusterOf().Config, "unseen-job-"+ns, optionsDefault(), engine.CachedTargetOptions{})
		restarted.owner, restarted.inventory = h.owner, h.inventory
		release(ctx, clusterOf(), ns)
		Eventually(func() bool { return getIn(ctx, clusterOf().Client, &batchv1.Job{}, ns, "migrate") }).
			WithTimeout(clusterTimeout).Should(BeFalse(), "the TTL-after-finished controller deletes the finished Job")

		Expect(applyUntil(restarted, job)).To(Succeed())
		Expect(restarted.item("Job", "migrate")).To(And(HaveField("Phase", manifests.PhaseCompleted),
			HaveField("Status", ContainSubstring("gone before its outcome was seen"))))
		Eventually(func() int { return runs.of("migrate") }).WithTimeout(10 * time.Second).Should(Equal(1))
	})

	// Issue 67: a pass whose cache has not seen this render's hook Job yet
	// read it as gone and took the previous render's Complete, kept by
	// name, as its own end, so the next wave started while the hook ran.
	It("judges a Job that reads as gone only by an end state of its own UID, never by the previous run's of its name", func() {
		ns, h := setUp("lagging-job")
		hook := func(render int) *batchv1.Job {
			job := oneShot(ns, "hook", "update-policy", "recreate")
			job.Spec.Template.Labels["render"] = fmt.Sprint(render)
			return job
		}
		Expect(applyUntil(h, hook(1), configMap(ns, "after-1", nil, "apply-order", "1"))).To(Succeed())
		first := &batchv1.Job{}
		Expect(getIn(ctx, clusterOf().Client, first, ns, "hook")).To(BeTrue())

		second := hook(2)
		second.Spec.Template.Annotations = map[string]string{testcluster.NotReadyAnnotation: "true"} // runs until the spec ends
		next := configMap(ns, "after-2", nil, "apply-order", "1")
		Eventually(func(g Gomega) {
			_, err := h.apply(ctx, second, next)
			g.Expect(err).NotTo(HaveOccurred())
			var job batchv1.Job
			g.Expect(getIn(ctx, clusterOf().Client, &job, ns, "hook")).To(BeTrue())
			g.Expect(job.UID).NotTo(Equal(first.UID), "the first render's Job is re-created")
		}).WithTimeout(clusterTimeout).WithPolling(50 * time.Millisecond).Should(Succeed())
		Expect(h.item("Job", "hook")).To(HaveField("Ran", BeTrue()))

		// A restarted applier on the same cache, which has seen the first
		// Job go (Complete) but not the second one come.
		target := h.target.Target
		target.Live = laggingReader{LiveReader: target.Live, hidden: "hook"}
		restarted, err := engine.NewApplier(target, engine.Options{Name: "test.wavekit.dev"})
		Expect(err).NotTo(HaveOccurred())
		h.applier = restarted
		for range 3 {
			res, err := h.apply(ctx, second, next)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Done).To(BeFalse(), "the hook Job of this render runs")
			Expect(h.item("Job", "hook").Phase).NotTo(Equal(manifests.PhaseCompleted))
			Expect(getIn(ctx, clusterOf().Client, &corev1.ConfigMap{}, ns, "after-2")).To(BeFalse(), "wave 1 started before the hook finished")
		}
	})
}

// laggingReader is a cache that has not seen the object named hidden yet.
type laggingReader struct {
	engine.LiveReader
	hidden string
}

func (r laggingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if key.Name == r.hidden {
		return apierrors.NewNotFound(schema.GroupResource{Group: "batch", Resource: "jobs"}, key.Name)
	}
	return r.LiveReader.Get(ctx, key, obj, opts...)
}

// ttlJob is a Job the cluster deletes as soon as it completes, re-created
// for each render as a Helm hook is (update-policy recreate).
func ttlJob(ns, name string, render int) *batchv1.Job {
	job := oneShot(ns, name, "update-policy", "recreate")
	job.Spec.TTLSecondsAfterFinished = ptr.To(int32(0))
	job.Spec.Template.Labels["render"] = fmt.Sprint(render)
	return job
}

// heldJob is a Job whose pod runs until release ends it.
func heldJob(ns, name string) *batchv1.Job {
	job := oneShot(ns, name)
	job.Spec.Template.Annotations = map[string]string{testcluster.NotReadyAnnotation: "true"}
	return job
}

// release ends the run of every pod in ns, as its program would.
func release(ctx context.Context, cluster *testcluster.Env, ns string) {
	GinkgoHelper()
	for _, pod := range podsIn(ctx, cluster.Client, ns) {
		delete(pod.Annotations, testcluster.NotReadyAnnotation)
		Expect(cluster.Client.Update(ctx, &pod)).To(Succeed())
	}
}

// item returns the inventory item of kind and name.
func (h *harness) item(kind, name string) manifests.InventoryItem {
	GinkgoHelper()
	for _, item := range h.inventory {
		if item.Kind == kind && item.Name == name {
			return item
		}
	}
	Fail(fmt.Sprintf("no %s %s in the inventory %v", kind, name, h.inventory))
	return manifests.InventoryItem{}
}

// jobRuns counts the Jobs a watch saw created in a namespace, by name.
type jobRuns struct {
	mu   sync.Mutex
	uids map[string]map[string]bool
}

// countJobs watches the Jobs of ns until the spec ends.
func countJobs(ctx context.Context, cluster *testcluster.Env, ns string) *jobRuns {
	GinkgoHelper()
	clientset, err := kubernetes.NewForConfig(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(ctx)
	DeferCleanup(cancel)
	w, err := clientset.BatchV1().Jobs(ns).Watch(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	r := &jobRuns{uids: map[string]map[string]bool{}}
	go func() {
		for e := range w.ResultChan() {
			job, ok := e.Object.(*batchv1.Job)
			if !ok || e.Type == watch.Error {
				continue
			}
			r.mu.Lock()
			if r.uids[job.Name] == nil {
				r.uids[job.Name] = map[string]bool{}
			}
			r.uids[job.Name][string(job.UID)] = true
			r.mu.Unlock()
		}
	}()
	return r
}

// of returns how many Jobs named name were seen.
func (r *jobRuns) of(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.uids[name])
}
