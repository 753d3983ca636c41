package component_test

import (
	"context"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

var _ = Describe("status writes", func() {
	It("writes the status at most once per Reconcile through the install, an upgrade that adds objects, and the deletion with a delete hook of a 3-wave component", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		var reconciles *reconcileWrites
		h := startOperator(ctx, ns, component.ReconcilerOptions{}, func(r *component.Reconciler[*v1alpha1.Component]) {
			reconciles = countWritesPerReconcile(r)
		})
		reconciles.use(h.counter)

		c := createReady(ctx, newComponent(ns, "waves", threeWaves(2, "one")))
		install := reconciles.take()

		update(ctx, c, func(c *v1alpha1.Component) { setValues(c, threeWaves(3, "two")) })
		eventually(func() map[string]string {
			if cm := getConfigMap(ctx, ns, "w2-2"); cm != nil {
				return cm.Data
			}
			return nil
		}).Should(Equal(map[string]string{"v": "two"}), "the upgrade's new object in the last wave")
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		upgrade := reconciles.take()

		appliedBefore := h.counter.Count("apply", "configmaps")
		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("gone"))
		deletion := reconciles.take()
		Expect(h.counter.Count("apply", "configmaps")).To(Equal(appliedBefore+1), "the delete hook ran once")

		phases := []phaseWrites{install, upgrade, deletion}
		for i, phase := range phases {
			AddReportEntry([]string{"install", "upgrade", "delete"}[i] + ": " + phase.String())
		}
		for _, phase := range phases {
			Expect(phase.most()).To(BeNumerically("<=", 1), "status writes of each Reconcile: %s", phase)
		}
		Expect(install.total()).To(BeNumerically(">=", 1), "the install recorded its objects")
		Expect(deletion.total()).To(BeNumerically(">=", 2), "the deletion recorded its hook before creating it, and said Deleting before the finalizer went")
	})
})

// threeWaves renders n ConfigMaps in each of three apply waves, their data
// v set to value, and farewell, a pre-delete hook.
func threeWaves(n int, value string) map[string]any {
	cms := map[string]any{"farewell": map[string]any{"annotations": map[string]any{"delete-hook": "pre-delete"}}}
	for wave := range 3 {
		for i := range n {
			cms[fmt.Sprintf("w%d-%d", wave, i)] = map[string]any{
				"data":        map[string]any{"v": value},
				"annotations": map[string]any{"apply-order": fmt.Sprint(wave)},
			}
		}
	}
	return map[string]any{"configMaps": cms}
}

// reconcileWrites counts the status writes of each Reconcile of one
// component: a post-read hook marks where each Reconcile begins (the
// reconciles of one component never overlap).
type reconcileWrites struct {
	mu      sync.Mutex
	counter *apicount.Counter
	marks   []int // status writes so far, at the start of each Reconcile
}

func countWritesPerReconcile(r *component.Reconciler[*v1alpha1.Component]) *reconcileWrites {
	w := &reconcileWrites{}
	r.WithPostReadHook(func(context.Context, client.Client, *v1alpha1.Component) error {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.marks = append(w.marks, w.statusWrites())
		return nil
	})
	return w
}

// use counts the status writes counter has seen.
func (w *reconcileWrites) use(counter *apicount.Counter) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.counter = counter
}

func (w *reconcileWrites) statusWrites() int {
	return w.counter.Count("update", "components/status") + w.counter.Count("patch", "components/status")
}

// take returns the writes of each Reconcile since the last take, the last
// one ending now, and starts counting anew.
func (w *reconcileWrites) take() phaseWrites {
	w.mu.Lock()
	defer w.mu.Unlock()
	marks := append(w.marks, w.statusWrites())
	var out phaseWrites
	for i := 1; i < len(marks); i++ {
		out = append(out, marks[i]-marks[i-1])
	}
	w.marks = []int{w.statusWrites()}
	return out
}

// phaseWrites are the status writes of each Reconcile of a phase.
type phaseWrites []int

func (p phaseWrites) total() int {
	n := 0
	for _, v := range p {
		n += v
	}
	return n
}

func (p phaseWrites) most() int {
	n := 0
	for _, v := range p {
		n = max(n, v)
	}
	return n
}

func (p phaseWrites) String() string {
	return fmt.Sprintf("%d status writes in %d Reconciles %v", p.total(), len(p), []int(p))
}
