package helm_test

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The ttlhooks chart's hook Jobs have ttlSecondsAfterFinished: 0, so the
// cluster's TTL-after-finished controller deletes each one as soon as the
// Job controller marks it finished, often before wavekit has seen it
// finish. Each hook must still run once per install, upgrade and delete
// (docs/concepts.md, "Run-once objects"): the observer counts every Job
// created, by its UID.
var _ = Describe("hook Jobs that the cluster deletes as soon as they finish", Ordered, func() {
	const ns = "ttl-hooks"
	ctx := context.Background()
	once := useOnceOperator(ns)

	It("runs each hook once per install, upgrade and delete, over 4 installs, 16 upgrades and 4 deletes", func() {
		const installs, upgrades = 4, 4
		for i := range installs {
			c := ttlComponent(ns, fmt.Sprintf("r%d", i), `{"run":1}`)
			Expect(env.Client.Create(ctx, c)).To(Succeed())
			eventually(func() string { return readyAt(ctx, c) }).Should(HavePrefix("True/Ready at 1:"))
			for generation := int64(2); generation <= upgrades+1; generation++ {
				replaceValues(ctx, c, fmt.Sprintf(`{"run":%d}`, generation))
				eventually(func() string { return readyAt(ctx, c) }).Should(HavePrefix(fmt.Sprintf("True/Ready at %d:", generation)))
			}
			Expect(env.Client.Delete(ctx, c)).To(Succeed())
			eventually(func() string { return readyAt(ctx, c) }).Should(Equal("gone"))
		}
		runs, want := map[string]int{}, map[string]int{}
		for i := range installs {
			for hook, n := range map[string]int{"pre": 1 + upgrades, "post": 1 + upgrades, "delete": 1} {
				name := fmt.Sprintf("r%d-%s", i, hook)
				runs[name], want[name] = once.jobs.Runs(name), n
			}
		}
		GinkgoWriter.Printf("runs per hook Job: %v\n", runs)
		Expect(runs).To(Equal(want), "Jobs in the order they ran: %v", once.jobs.Order())
		eventually(func() []string { return leftovers(ctx, ns, "none") }).Should(BeEmpty())
	})

	It("fails the install when a hook Job is deleted before it finished, says so, and does not create it again", func() {
		c := ttlComponent(ns, "cut", `{"hold":"pre"}`)
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() int32 { return jobActive(ctx, ns, "cut-pre") }).Should(Equal(int32(1)))

		Expect(env.Client.Delete(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cut-pre"}},
			client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed())

		eventually(func() string { return readyAt(ctx, c) }).Should(And(
			HavePrefix("False/"),
			ContainSubstring("batch/Job "+ns+"/cut-pre failed: deleted before it finished"),
		), once.jobs.describe)
		requestReconcile(ctx, c, "after-delete")
		Expect(once.jobs.Runs("cut-pre")).To(Equal(1), "the hook ran once: %v", once.jobs.Order())
		Expect(exists(ctx, &batchv1.Job{}, ns, "cut-pre")).To(BeFalse())
		Expect(readyAt(ctx, c)).To(ContainSubstring("deleted before it finished; not run again for this render"))

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() string { return readyAt(ctx, c) }).Should(Equal("gone"))
	})

	It("waits for a hook that runs while the operator restarts, and runs it once", func() {
		c := installHeld(ctx, ns, "resume")

		once.op.stop()
		once.op.start()
		requestReconcile(ctx, c, "after-restart")
		Expect(once.jobs.Runs("resume-pre")).To(Equal(1), "the restarted operator waits for the running Job")

		releasePods(ctx, ns, "resume-pre")
		eventually(func() string { return readyAt(ctx, c) }).Should(HavePrefix("True/Ready at 1:"), once.jobs.describe)
		Expect(once.jobs.Runs("resume-pre")).To(Equal(1), "Jobs in the order they ran: %v", once.jobs.Order())
		Expect(once.jobs.Runs("resume-post")).To(Equal(1))

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() string { return readyAt(ctx, c) }).Should(Equal("gone"))
	})

	It("counts a hook whose Job finished and was deleted while the operator was down as succeeded, and says it did not see how it ended", func() {
		c := installHeld(ctx, ns, "unseen")

		once.op.stop()
		releasePods(ctx, ns, "unseen-pre")
		eventually(func() bool { return exists(ctx, &batchv1.Job{}, ns, "unseen-pre") }).Should(BeFalse(),
			"the TTL-after-finished controller deletes the finished Job")
		once.op.start()

		eventually(func() string { return readyAt(ctx, c) }).Should(HavePrefix("True/Ready at 1:"), once.jobs.describe)
		Expect(once.jobs.Runs("unseen-pre")).To(Equal(1), "Jobs in the order they ran: %v", once.jobs.Order())
		item := itemOf(ctx, c, "unseen-pre")
		Expect(item.Phase).To(Equal(manifests.PhaseCompleted))
		Expect(item.Status).To(ContainSubstring("gone before its outcome was seen"))

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() string { return readyAt(ctx, c) }).Should(Equal("gone"))
	})
})

// The same chart with the command line: every wavekit apply, rollback and
// delete is one attempt, and runs each of its hooks once.
var _ = Describe("hook Jobs that the cluster deletes as soon as they finish, with wavekit apply", Ordered, func() {
	const (
		ns      = "ttl-hooks-cli"
		release = "cli"
		applies = 8
	)
	var (
		ctx        = context.Background()
		jobs       *jobObserver
		kubeconfig string
	)

	BeforeAll(func() {
		newNamespace(ctx, ns)
		jobs = observeJobs(ns)
		kubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())
	})

	It("runs each hook once per apply, rollback and delete", func() {
		for run := 1; run <= applies; run++ {
			wavekit(kubeconfig, "apply", release, chartDir("ttlhooks"), "-n", ns, "--set", fmt.Sprintf("run=%d", run), "--wait", "--timeout", "1m")
		}
		wavekit(kubeconfig, "rollback", release, "2", "-n", ns, "--wait", "--timeout", "1m")
		wavekit(kubeconfig, "delete", release, "-n", ns, "--wait", "--timeout", "1m")

		runs := map[string]int{"pre": jobs.Runs(release + "-pre"), "post": jobs.Runs(release + "-post"), "delete": jobs.Runs(release + "-delete")}
		GinkgoWriter.Printf("runs per hook Job: %v\n", runs)
		Expect(runs).To(Equal(map[string]int{"pre": applies + 1, "post": applies + 1, "delete": 1}),
			"Jobs in the order they ran: %v", jobs.Order())
	})

	It("fails the apply when a hook Job is deleted before it finished, says so, and does not create it again", func() {
		type result struct {
			code   int
			stderr string
		}
		done := make(chan result, 1)
		go func() {
			defer GinkgoRecover()
			code, _, stderr := run(kubeconfig, "apply", "cut", chartDir("ttlhooks"), "-n", ns, "--set", "hold=pre", "--wait", "--timeout", "1m")
			done <- result{code, stderr}
		}()
		eventually(func() int32 { return jobActive(ctx, ns, "cut-pre") }).Should(Equal(int32(1)))
		Expect(env.Client.Delete(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cut-pre"}},
			client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed())

		var got result
		Eventually(done).WithTimeout(90 * time.Second).Should(Receive(&got))
		Expect(got.code).To(Equal(1))
		Expect(got.stderr).To(ContainSubstring("batch/Job " + ns + "/cut-pre failed: deleted before it finished"))
		Expect(jobs.Runs("cut-pre")).To(Equal(1), jobs.describe())
		wavekit(kubeconfig, "delete", "cut", "-n", ns, "--wait", "--timeout", "1m")
	})
})

// ttlComponent is a Component of the ttlhooks chart with values.
func ttlComponent(namespace, name, values string) *v1alpha1.Component {
	return onceComponent("ttlhooks", namespace, name, values)
}

// requestReconcile asks the Component's operator for a pass and waits until
// it has handled it.
func requestReconcile(ctx context.Context, c *v1alpha1.Component, value string) {
	GinkgoHelper()
	key := manifests.Key(onceOperator, component.AnnotationReconcileRequestedAt)
	patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, key, value))
	Expect(env.Client.Patch(ctx, c, client.RawPatch(types.MergePatchType, patch))).To(Succeed())
	eventually(func() string {
		got, err := componenttest.GetComponent(ctx, env.Client, client.ObjectKeyFromObject(c))
		Expect(err).NotTo(HaveOccurred())
		return got.Status.LastHandledReconcileAt
	}).Should(Equal(value))
}

// itemOf returns the inventory item of the Component's Job name (a zero
// item while there is none).
func itemOf(ctx context.Context, c *v1alpha1.Component, name string) manifests.InventoryItem {
	GinkgoHelper()
	got, err := componenttest.GetComponent(ctx, env.Client, client.ObjectKeyFromObject(c))
	Expect(err).NotTo(HaveOccurred())
	for _, item := range got.Status.Inventory {
		if item.Kind == "Job" && item.Name == name {
			return item
		}
	}
	return manifests.InventoryItem{}
}

// installHeld creates a Component of the ttlhooks chart whose pre hook runs
// until releasePods ends it, and waits until the operator waits for it.
func installHeld(ctx context.Context, namespace, name string) *v1alpha1.Component {
	GinkgoHelper()
	c := ttlComponent(namespace, name, `{"hold":"pre"}`)
	Expect(env.Client.Create(ctx, c)).To(Succeed())
	eventually(func() int32 { return jobActive(ctx, namespace, name+"-pre") }).Should(Equal(int32(1)))
	eventually(func() string { return itemOf(ctx, c, name+"-pre").Status }).Should(ContainSubstring("InProgress"))
	return c
}
