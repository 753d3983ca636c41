package engine_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

const shardLabel = "test.wavekit.dev/shard"

var _ = Describe("the applier of a shard", func() {
	var (
		ctx context.Context
		ns  string
	)
	BeforeEach(func() {
		ctx, ns, _ = newSpec("shard")
	})

	It("labels what it writes and caches only objects with its label", func() {
		blue := newShardHarness(ctx, "shard", "blue")
		blue.applyUntilDone(ctx, configMap(ns, "cm", nil))
		Expect(getConfigMap(ctx, ns, "cm").Labels).To(HaveKeyWithValue(shardLabel, "blue"))
		green := newShardHarness(ctx, "shard", "green")
		// Once green's cache has started, it does not hold blue's object.
		Eventually(func() error {
			return green.target.Cache.Get(ctx, client.ObjectKey{Namespace: ns, Name: "cm"}, &corev1.ConfigMap{})
		}).Should(Satisfy(apierrors.IsNotFound), "green caches blue's object")
	})

	// A shard's cache lacks the other shards' objects, so a name it does
	// not hold may be another component's: the create is an apply that
	// the API server refuses when the name is taken (a resourceVersion
	// precondition no object meets), not a read before every new object.
	It("creates a new object in one apply, and leaves another shard's component's object as it is", func() {
		blue := newShardHarness(ctx, "shard", "blue")
		blue.applyUntilDone(ctx, configMap(ns, "held", map[string]string{"by": "blue"}))
		held := getConfigMap(ctx, ns, "held")

		green := newShardHarness(ctx, "other", "green")
		green.waitForCache(ctx)
		green.counter.Reset()
		_, err := green.apply(ctx, configMap(ns, "fresh", nil))
		Expect(err).NotTo(HaveOccurred())
		Expect(getConfigMap(ctx, ns, "fresh").Labels).To(HaveKeyWithValue(shardLabel, "green"))
		Expect(green.counter.Count("get", "configmaps")).To(BeZero(), green.counter.String())
		Expect(green.counter.Count("apply", "configmaps")).To(Equal(1), green.counter.String())

		_, err = green.apply(ctx, configMap(ns, "fresh", nil), configMap(ns, "held", map[string]string{"by": "green"}))
		Expect(err).To(MatchError(And(ContainSubstring(`ConfigMap `+ns+`/held`), ContainSubstring("already exists and is managed by Component default/shard"))))
		after := getConfigMap(ctx, ns, "held")
		Expect(after.ResourceVersion).To(Equal(held.ResourceVersion), "written over")
		Expect(after.Data).To(Equal(map[string]string{"by": "blue"}))
	})

	It("takes over another shard's objects without re-creating them, and deletes what its cache does not hold yet", func() {
		blue := newShardHarness(ctx, "shard", "blue")
		blue.applyUntilDone(ctx, configMap(ns, "taken", nil), configMap(ns, "deleted", nil))
		uid := getConfigMap(ctx, ns, "taken").UID

		By("green, the component's new shard, applies one object and deletes the other")
		green := newShardHarness(ctx, "shard", "green")
		green.inventory = blue.inventory
		green.applyUntilDone(ctx, configMap(ns, "taken", nil))
		taken := getConfigMap(ctx, ns, "taken")
		Expect(taken.UID).To(Equal(uid))
		Expect(taken.Labels).To(HaveKeyWithValue(shardLabel, "green"))
		Expect(getConfigMap(ctx, ns, "deleted")).To(BeNil(), "pruned although it carried blue's label")

		By("deleting the component right after another move: the object still has green's label")
		blue = newShardHarness(ctx, "shard", "blue")
		blue.inventory = green.inventory
		blue.deleteUntilDone(ctx)
		Expect(getConfigMap(ctx, ns, "taken")).To(BeNil(), "left behind: a cache miss is not gone")
	})

	// A hook Job of a component that moved: the new shard re-creates the
	// old shard's Job (update-policy recreate) at its next render. Its
	// cache does not hold that Job, so the deletion sends it no event; the
	// soak saw such a component wait for its hook until the next resync.
	It("asks to look again when it re-creates an object of another shard, whose deletion its cache does not see", func() {
		job := func(image string) *batchv1.Job {
			return &batchv1.Job{
				TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "migrate", Annotations: annotations("update-policy", "recreate")},
				Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "migrate", Image: image}},
				}}},
			}
		}
		blue := newShardHarness(ctx, "shard", "blue")
		liveJob := func() *batchv1.Job {
			var live batchv1.Job
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "migrate"}, &live); err != nil {
				return nil
			}
			return &live
		}
		Eventually(func() *batchv1.Job { // a bare API server runs no Job controller: never Done
			_, err := blue.apply(ctx, job("busybox:1"))
			Expect(err).NotTo(HaveOccurred())
			return liveJob()
		}).WithTimeout(30 * time.Second).ShouldNot(BeNil())
		blue.waitForCache(ctx)
		first := liveJob().UID

		By("the shard that holds the Job re-creates it and waits for its deletion's event")
		res, err := blue.apply(ctx, job("busybox:2"))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Recheck).To(BeFalse(), "its own cache sees the deletion")
		var second *batchv1.Job
		Eventually(func() bool {
			_, err := blue.apply(ctx, job("busybox:2"))
			Expect(err).NotTo(HaveOccurred())
			second = liveJob()
			return second != nil && second.UID != first
		}).WithTimeout(30 * time.Second).Should(BeTrue())

		By("green, the component's new shard, re-creates blue's Job at the next render")
		green := newShardHarness(ctx, "shard", "green")
		green.inventory = blue.inventory
		res, err = green.apply(ctx, job("busybox:3"))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())
		Expect(res.Recheck).To(BeTrue(), "no event will say that blue's Job is gone")
		Expect(green.inventory[0].Status).To(Equal("waiting for the old object to be deleted"))
		Expect(green.inventory[0].Ran).To(BeFalse(), "only deleted: the Job of this render has not run")

		By("the next pass creates the Job of the new render, with green's label")
		Eventually(func() map[string]string {
			_, err := green.apply(ctx, job("busybox:3"))
			Expect(err).NotTo(HaveOccurred())
			if live := liveJob(); live != nil && live.UID != second.UID {
				return live.Labels
			}
			return nil
		}).WithTimeout(30 * time.Second).Should(HaveKeyWithValue(shardLabel, "green"))
		Expect(green.inventory[0].Ran).To(BeTrue())
	})

	// A hook Job that ran at this render, of a component that moved before
	// the Job's outcome was judged: the Job keeps the old shard's label, so
	// the new shard's cache never shows it. The soak saw such a component
	// wait for its hook with "not in the cache yet" for good.
	It("judges a run-once object of another shard by the API server's copy, and looks again while it runs", func() {
		job := &batchv1.Job{
			TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hook", Finalizers: []string{"test.wavekit.dev/hold"}},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "hook", Image: "busybox:1"}},
			}}},
		}
		blue := newShardHarness(ctx, "shard", "blue")
		_, err := blue.apply(ctx, job) // a bare API server runs no Job controller: it runs for good
		Expect(err).NotTo(HaveOccurred())
		Expect(blue.inventory[0].Ran).To(BeTrue())
		live := &batchv1.Job{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(job), live)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			live := &batchv1.Job{}
			if env.Client.Get(ctx, client.ObjectKeyFromObject(job), live) == nil {
				live.Finalizers = nil
				Expect(client.IgnoreNotFound(env.Client.Update(ctx, live))).To(Succeed())
			}
		})

		By("green, the component's new shard, at the same render: the Job still runs")
		green := newShardHarness(ctx, "shard", "green")
		green.inventory = blue.inventory
		res, err := green.apply(ctx, job)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())
		Expect(res.Recheck).To(BeTrue(), "no event of green's cache will say when blue's Job ends")
		Expect(green.inventory[0].Status).To(ContainSubstring("InProgress"))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(job), &batchv1.Job{})).To(Succeed(), "created again or deleted")

		By("someone deletes the Job before it finished: green judges it by the API server's copy")
		Expect(env.Client.Delete(ctx, live)).To(Succeed()) // its finalizer keeps it, being deleted
		res, err = green.apply(ctx, job)
		Expect(err).To(MatchError(ContainSubstring("deleted before it finished")))
		Expect(res.Recheck).To(BeFalse())
		Expect(green.inventory[0].Status).To(ContainSubstring("deleted before it finished"))
		Expect(string(green.inventory[0].Phase)).To(Equal("Error"))
	})
})

// newShardHarness is newHarness for the shard key of operator
// test.wavekit.dev: its writes carry the shard label and its cache holds
// only objects with it.
func newShardHarness(ctx context.Context, name, key string) *harness {
	labels := map[string]string{shardLabel: key}
	return newHarnessWith(ctx, name, engine.Options{Labels: labels}, engine.CachedTargetOptions{})
}
