package engine_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

func TestEngine(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "engine")
}

var env *testcluster.Env

var _ = BeforeSuite(func() {
	log.SetLogger(GinkgoLogr)
	var err error
	env, err = testcluster.Start(testcluster.Options{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
})

// harness is one applier on the test cluster with its requests counted and
// its inventory kept the way a component status would keep it.
type harness struct {
	applier   *engine.Applier
	target    *engine.CachedTarget
	counter   *apicount.Counter
	owner     engine.Owner
	inventory []manifests.InventoryItem
	saves     int
}

func newHarness(ctx context.Context, name string, opts engine.Options) *harness {
	return newHarnessWith(ctx, name, opts, engine.CachedTargetOptions{})
}

// newHarnessWith is newHarness with a target made with targetOpts.
func newHarnessWith(ctx context.Context, name string, opts engine.Options, targetOpts engine.CachedTargetOptions) *harness {
	return newHarnessOn(ctx, env.Config, name, opts, targetOpts)
}

// newHarnessOn is newHarnessWith on a target that reaches the cluster
// through cfg. The target is made with opts as its appliers' options
// (targetOpts.Options is not read).
func newHarnessOn(ctx context.Context, cfg *rest.Config, name string, opts engine.Options, targetOpts engine.CachedTargetOptions) *harness {
	counter := apicount.New()
	ctx, cancel := context.WithCancel(ctx)
	DeferCleanup(cancel)
	opts.Name = "test.wavekit.dev"
	targetOpts.Options = opts
	target, err := engine.NewCachedTarget(ctx, counter.Wrap(cfg), env.Scheme, targetOpts)
	Expect(err).NotTo(HaveOccurred())
	applier, err := target.NewApplier()
	Expect(err).NotTo(HaveOccurred())
	return &harness{
		applier: applier, target: target, counter: counter,
		owner: engine.Owner{
			ID:          manifests.OwnerID("test.wavekit.dev", "Component", "default", name),
			Description: "Component default/" + name, Namespace: "default", Generation: 1,
			UID: types.UID("uid-" + name),
		},
	}
}

func (h *harness) save(_ context.Context, items []manifests.InventoryItem) error {
	h.saves++
	h.inventory = items
	return nil
}

// apply runs one Apply pass and keeps the inventory.
func (h *harness) apply(ctx context.Context, objects ...any) (engine.Result, error) {
	res, err := h.applier.Apply(ctx, h.owner, toObjects(objects), h.inventory, h.save)
	h.inventory = res.Inventory
	return res, err
}

// applyUntilDone repeats Apply until it reports Done (as events would make a
// reconciler do) and returns the last result.
func (h *harness) applyUntilDone(ctx context.Context, objects ...any) engine.Result {
	var res engine.Result
	Eventually(func() (bool, error) {
		var err error
		res, err = h.apply(ctx, objects...)
		return res.Done, err
	}).WithTimeout(30 * time.Second).WithPolling(50 * time.Millisecond).Should(BeTrue())
	return res
}

func (h *harness) delete(ctx context.Context) (engine.Result, error) {
	res, err := h.applier.Delete(ctx, h.owner, h.inventory, engine.DeleteOptions{})
	h.inventory = res.Inventory
	return res, err
}

func (h *harness) deleteUntilDone(ctx context.Context) {
	Eventually(func() (bool, error) {
		res, err := h.delete(ctx)
		return res.Done, err
	}).WithTimeout(30 * time.Second).WithPolling(50 * time.Millisecond).Should(BeTrue())
	Expect(h.inventory).To(BeEmpty())
}

// waitForCache waits until the owner-label cache holds every inventory item
// at its current resourceVersion, as it does when a reconciler is triggered
// by events after its own writes.
func (h *harness) waitForCache(ctx context.Context) {
	for _, item := range h.inventory {
		apiVersion := item.Group + "/" + item.Version
		if item.Group == "" {
			apiVersion = item.Version
		}
		live := get(ctx, apiVersion, item.Kind, item.Namespace, item.Name)
		if live == nil {
			continue
		}
		Eventually(func() string {
			cached := &unstructured.Unstructured{}
			cached.SetGroupVersionKind(live.GroupVersionKind())
			if err := h.target.Cache.Get(ctx, client.ObjectKeyFromObject(live), cached); err != nil {
				return err.Error()
			}
			return cached.GetResourceVersion()
		}).Should(Equal(live.GetResourceVersion()), item.String())
	}
}

// newSpec gives a spec a context, a namespace of its own and a harness whose
// owner is named after the namespace and puts objects there.
func newSpec(name string) (context.Context, string, *harness) {
	ctx := context.Background()
	ns := newNamespace(ctx)
	h := newHarness(ctx, name+"-"+ns, optionsDefault())
	h.owner.Namespace = ns
	return ctx, ns, h
}
