package helm_test

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// Issue 76: an upgrade made while a hook-succeeded hook Job of the previous
// release had completed but was not deleted yet (the operator stopped
// between the two) updated that Job in place to the new revision, and its
// old completion passed for the upgrade's run: the upgrade's hook never
// ran, and the Component said Ready. Helm never updates a hook.
var _ = Describe("a hook Job that completed while the operator was stopped, before its hook-succeeded deletion", Ordered, func() {
	const ns = "unpurged-hook"
	ctx := context.Background()
	once := useOnceOperator(ns)

	It("is deleted and created anew by the next upgrade, never updated, and the upgrade waits for the new Job's own end", func() {
		revisions := watchRevisions(ctx, ns)
		c := onceComponent("unpurged", ns, "app", `{"run":1}`)
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() int32 { return jobActive(ctx, ns, "app-migrate") }).Should(Equal(int32(1)))
		var first batchv1.Job
		Expect(exists(ctx, &first, ns, "app-migrate")).To(BeTrue())

		By("stopping the operator, and letting the hook succeed meanwhile")
		once.op.stop()
		releasePods(ctx, ns, "app-migrate")
		eventually(func() int32 {
			var job batchv1.Job
			exists(ctx, &job, ns, "app-migrate")
			return job.Status.Succeeded
		}).Should(Equal(int32(1)))

		By("upgrading while the operator is stopped, and starting it again")
		replaceValues(ctx, c, `{"run":2}`)
		once.op.start()
		eventually(func() int { return once.jobs.Runs("app-migrate") }).Should(Equal(2), "no hook Job ran for the upgrade: %v", once.jobs.Order())
		Consistently(func() string { return readyAt(ctx, c) }).WithTimeout(2*time.Second).WithPolling(100*time.Millisecond).
			ShouldNot(HavePrefix("True/Ready at 2:"), "Ready while the upgrade's hook runs")

		releasePods(ctx, ns, "app-migrate")
		eventually(func() string { return readyAt(ctx, c) }).Should(HavePrefix("True/Ready at 2:"), once.jobs.describe)
		Expect(once.jobs.Runs("app-migrate")).To(Equal(2), "Jobs in the order they ran: %v", once.jobs.Order())
		Expect(revisions.of(first.UID)).To(Equal([]string{"1"}), "the first release's hook Job was updated")
		eventually(func() bool { return exists(ctx, &batchv1.Job{}, ns, "app-migrate") }).Should(BeFalse(),
			"the upgrade's hook Job is deleted once it succeeded")

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() string { return readyAt(ctx, c) }).Should(Equal("gone"))
	})
})

// jobRevisions records, by UID, the values of the annotation revision that
// the Jobs of a namespace carried, in the order a watch saw them.
type jobRevisions struct {
	mu    sync.Mutex
	byUID map[types.UID][]string
}

// watchRevisions watches the Jobs of namespace until the spec ends.
func watchRevisions(ctx context.Context, namespace string) *jobRevisions {
	GinkgoHelper()
	clientset, err := kubernetes.NewForConfig(env.Config)
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(ctx)
	DeferCleanup(cancel)
	w, err := clientset.BatchV1().Jobs(namespace).Watch(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	r := &jobRevisions{byUID: map[types.UID][]string{}}
	go func() {
		for e := range w.ResultChan() {
			job, ok := e.Object.(*batchv1.Job)
			if !ok || e.Type == watch.Error {
				continue
			}
			r.mu.Lock()
			seen := r.byUID[job.UID]
			if revision := job.Annotations["revision"]; len(seen) == 0 || seen[len(seen)-1] != revision {
				r.byUID[job.UID] = append(seen, revision)
			}
			r.mu.Unlock()
		}
	}()
	return r
}

// of returns the revisions the Job with uid carried.
func (r *jobRevisions) of(uid types.UID) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.byUID[uid]...)
}
