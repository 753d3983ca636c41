package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/drift"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
	"github.com/wavekit-dev/wavekit/pkg/internal/handover"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// begin is the front half of an apply pass, shared by Apply, Preview and
// Diff: it prepares the objects an apply works on (prepareFor), adds the
// namespaces they need, applies the CRD policy (skipCRDs, checkStoredVersions), sorts them for
// apply and starts a pass on inventory with an item for each. added says
// whether items were added, so that the inventory must be saved before any
// write. An invalid object is a manifests.UserError.
func (s *ownerScope) begin(ctx context.Context, objects []client.Object, inventory []manifests.InventoryItem) (run *pass, objs []*plan.Desired, added bool, err error) {
	p, objs, err := s.prepareFor(forApply, objects, handover.Given(ctx))
	if err != nil {
		return nil, nil, false, err
	}
	if objs, err = s.a.neededNamespaces(ctx, p, objs, inventory); err != nil {
		return nil, nil, false, err
	}
	run = newPass(s, inventory)
	objs, skipped, err := s.skipCRDs(ctx, objs, run.items)
	if err != nil {
		return nil, nil, false, err
	}
	run.forget(skipped)
	if err := s.checkStoredVersions(ctx, objs, run.items); err != nil {
		return nil, nil, false, err
	}
	plan.SortForApply(objs)
	return run, objs, run.schedule(objs), nil
}

// The CRD policy of the CustomResourceDefinitions a component ships
// (manifests.CRDPolicy, from spec.crds or the object's <name>/crd-policy):
// CreateReplace creates and updates them; Create creates missing ones and
// never updates one (decide); Skip leaves them out of the pass (skipCRDs).
// Whatever the policy, an update that would drop a version the API server
// still stores objects in is refused before the pass writes anything
// (checkStoredVersions).

// skipCRDs returns objs without the CRDs the pass leaves alone, and their
// keys: those whose policy is Skip, and those whose policy is Create that
// exist already but are not in the inventory (another owner's, or a
// cluster's own). They are neither created, updated nor deleted; one an
// earlier pass recorded leaves the inventory and stays in the cluster. A
// Create CRD without an inventory item costs one read.
func (s *ownerScope) skipCRDs(ctx context.Context, objs []*plan.Desired, items map[manifests.ObjectKey]*manifests.InventoryItem) (kept []*plan.Desired, skipped []manifests.ObjectKey, err error) {
	kept = objs[:0:0]
	for _, d := range objs {
		skip := kinds.IsCRD(d.GVK.Group, d.GVK.Kind) && d.Policies.CRD == manifests.CRDSkip
		if kinds.IsCRD(d.GVK.Group, d.GVK.Kind) && d.Policies.CRD == manifests.CRDCreate && items[d.Key] == nil {
			live, err := s.a.getDirect(ctx, d)
			if err != nil {
				return nil, nil, err
			}
			skip = live != nil
		}
		if skip {
			skipped = append(skipped, d.Key)
			continue
		}
		kept = append(kept, d)
	}
	return kept, skipped, nil
}

// forget drops the items of keys from the inventory without touching their
// objects.
func (r *pass) forget(keys []manifests.ObjectKey) {
	for _, key := range keys {
		delete(r.items, key)
	}
}

// checkStoredVersions refuses, as an ObjectError of each CRD (a
// manifests.UserError), a render whose CRD would drop a version that the
// live CRD's status.storedVersions still lists: objects stored in it would
// become unreadable. Only CRDs whose render changed since the inventory's
// record, or that it does not record, are read (one request each), so a pass
// that changes nothing makes no request.
func (s *ownerScope) checkStoredVersions(ctx context.Context, objs []*plan.Desired, items map[manifests.ObjectKey]*manifests.InventoryItem) error {
	var errs []error
	for _, d := range objs {
		if !kinds.IsCRD(d.GVK.Group, d.GVK.Kind) || d.Policies.CRD != manifests.CRDCreateReplace {
			continue
		}
		if item := items[d.Key]; item != nil && item.Digest == d.Digest {
			continue
		}
		live, err := s.a.getDirect(ctx, d)
		if err != nil {
			return err
		}
		if live == nil {
			continue
		}
		if dropped := strings.Join(droppedStoredVersions(d.Object, live), ", "); dropped != "" {
			errs = append(errs, api.Refused(d.Key, fmt.Errorf("would drop version %s, which status.storedVersions still lists: "+
				"objects stored in it would become unreadable. Migrate them to a served version first (a storage version migration, "+
				"or read and write each object again), then remove %s from the CRD's status.storedVersions, then apply this render",
				dropped, dropped)))
		}
	}
	return errors.Join(errs...)
}

// droppedStoredVersions lists the versions of live's status.storedVersions
// that rendered no longer has in spec.versions.
func droppedStoredVersions(rendered, live *unstructured.Unstructured) []string {
	stored, _, _ := unstructured.NestedStringSlice(live.Object, "status", "storedVersions")
	versions, _, _ := unstructured.NestedSlice(rendered.Object, "spec", "versions")
	var names []string
	for _, v := range versions {
		if m, ok := v.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				names = append(names, name)
			}
		}
	}
	var dropped []string
	for _, version := range stored {
		if !slices.Contains(names, version) {
			dropped = append(dropped, version)
		}
	}
	return dropped
}

// passKind is a kind of pass, by the rendered objects it works on.
type passKind struct {
	// what names them in the error about invalid ones.
	what string
	// pick returns them among the rendered objects.
	pick func(objects []client.Object, prefix string) []client.Object
	// testRun names the test run tests are prepared for.
	testRun string
}

// forApply selects what Apply, Preview and Diff work on: neither delete
// hooks nor tests. forDeleteHooks selects what Delete runs before the
// objects of a wave go.
var (
	forApply       = passKind{what: "manifests", pick: withoutHooks}
	forDeleteHooks = passKind{what: "delete hooks", pick: DeleteHooks}
)

// forTests selects the tests of a test run.
func forTests(run string) passKind {
	return passKind{what: "tests", pick: TestHooks, testRun: run}
}

// prepareFor is the one preparation of rendered objects for every kind of
// pass: it compiles the owner's drift ignore rules and health checks into
// the scope, and validates the selected objects (names, kinds, scopes,
// annotations, orders, duplicates) with them. Any rule added here holds for
// apply, preview, diff, delete hooks and tests alike. An invalid object is
// a manifests.UserError.
func (s *ownerScope) prepareFor(kind passKind, objects []client.Object, handedOver bool) (*plan.Preparer, []*plan.Desired, error) {
	p := s.preparerFor()
	p.TestRun, p.HandedOver = kind.testRun, handedOver
	var err error
	if p.Ignore, err = drift.CompileIgnoreRules(s.owner.Drift.Ignore); err != nil {
		return nil, nil, err
	}
	if s.health, err = readiness.CompileHealthChecks(s.owner.HealthChecks); err != nil {
		return nil, nil, err
	}
	objs, err := p.Prepare(kind.pick(objects, s.a.opts.Name))
	if err != nil {
		return nil, nil, &manifests.UserError{Err: fmt.Errorf("invalid %s: %w", kind.what, err)}
	}
	return p, objs, nil
}

// preparerFor returns the preparer of owner's objects: the applier's name
// as annotation prefix, the owner's namespace, generation and defaults.
func (s *ownerScope) preparerFor() *plan.Preparer {
	return &plan.Preparer{
		Prefix: s.a.opts.Name, Namespace: s.owner.Namespace, Generation: s.owner.Generation,
		Defaults: s.defaults(), Scheme: s.a.scheme, Mapper: s.a.mapper,
	}
}

// decideFor asks decide about d for this scope's owner and records, in
// drift mode Warn, the drift it leaves.
func (s *ownerScope) decideFor(ctx context.Context, d *plan.Desired, item *manifests.InventoryItem, live *unstructured.Unstructured) plan.Decision {
	dec := plan.Decide(plan.Facts{
		Desired: d, Item: item, Live: live, Owner: s.ownership(),
		PurgedAtRender: live == nil && d.Policies.PurgeOrder != nil && s.track.purgedAt(d.Key, d.Digest),
		Now:            s.a.opts.Now().Unix(), Drift: s.owner.Drift.Mode,
		Drifted: func() ([]string, error) { return s.driftedFields(ctx, d, live), nil },
	})
	if dec.Reason == plan.ReasonDriftLeft {
		s.drifts.Add(Drift{Object: d.Key, Paths: dec.Paths, New: s.track.newDrift(d.Key, dec.Paths, live.Object)})
	}
	return dec
}

// withoutHooks leaves out the objects Apply never applies: delete hooks,
// which run on deletion, and tests, which only a test run creates.
func withoutHooks(objects []client.Object, prefix string) []client.Object {
	deleteKey, testKey := manifests.Key(prefix, manifests.AnnotationDeleteHook), manifests.Key(prefix, manifests.AnnotationTestHook)
	return filterObjects(objects, func(obj client.Object) bool {
		return !manifests.IsDeleteHook(annotation(obj, deleteKey)) && !manifests.IsTestHook(annotation(obj, testKey))
	})
}

// DeleteHooks returns the objects that only run on deletion: those with a
// valid <prefix>/delete-hook annotation.
func DeleteHooks(objects []client.Object, prefix string) []client.Object {
	key := manifests.Key(prefix, manifests.AnnotationDeleteHook)
	return filterObjects(objects, func(obj client.Object) bool { return manifests.IsDeleteHook(annotation(obj, key)) })
}

// TestHooks returns the tests among objects: those with a valid
// <prefix>/test-hook annotation, which only Test creates.
func TestHooks(objects []client.Object, prefix string) []client.Object {
	key := manifests.Key(prefix, manifests.AnnotationTestHook)
	return filterObjects(objects, func(obj client.Object) bool { return manifests.IsTestHook(annotation(obj, key)) })
}

// annotation returns obj's annotation key, without copying an
// Unstructured's annotations as GetAnnotations does.
func annotation(obj client.Object, key string) string {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return jsonvalue.Annotation(u.Object, key)
	}
	return obj.GetAnnotations()[key]
}

// filterObjects keeps the objects whose annotations keep says to. An object
// with an invalid delete-hook or test-hook value is no hook: it stays with
// the others, whose validation then names the bad value.
func filterObjects(objects []client.Object, keep func(client.Object) bool) []client.Object {
	out := make([]client.Object, 0, len(objects))
	for _, obj := range objects {
		if keep(obj) {
			out = append(out, obj)
		}
	}
	return out
}
