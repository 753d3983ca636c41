package engine

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// begin is the front half of an apply pass, shared by Apply and Diff: it
// validates the rendered objects (delete hooks and tests left out), adds the
// namespaces they need, applies the CRD policy (crds.go), sorts them for
// apply and starts a pass on inventory with an item for each. added says whether items were added,
// so that the inventory must be saved before any write. An invalid object
// is a manifests.UserError.
func (s *ownerScope) begin(ctx context.Context, objects []client.Object, inventory []manifests.InventoryItem) (run *pass, objs []*desired, added bool, err error) {
	p := s.preparerFor()
	if p.ignore, err = compileIgnoreRules(s.owner.Drift.Ignore); err != nil {
		return nil, nil, false, err
	}
	if s.health, err = compileHealthChecks(s.owner.HealthChecks); err != nil {
		return nil, nil, false, err
	}
	objs, err = p.prepare(withoutHooks(objects, s.opts.Name))
	if err != nil {
		return nil, nil, false, &manifests.UserError{Err: fmt.Errorf("invalid manifests: %w", err)}
	}
	if objs, err = s.neededNamespaces(ctx, p, objs, inventory); err != nil {
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
	sortForApply(objs)
	return run, objs, run.schedule(objs), nil
}

// preparerFor returns the preparer of owner's objects: the applier's name
// as annotation prefix, the owner's namespace, generation and defaults.
func (s *ownerScope) preparerFor() *preparer {
	return &preparer{
		prefix: s.opts.Name, namespace: s.owner.Namespace, generation: s.owner.Generation,
		defaults: s.defaults(), scheme: s.scheme, mapper: s.mapper,
	}
}

// decide is the write decision of a pass, the same for Apply and Diff: an
// object taken over by another owner, or one that may not be adopted, is an
// error; otherwise the decision says whether it must be written (see
// needsWrite).
func (s *ownerScope) decide(ctx context.Context, d *desired, item *manifests.InventoryItem, live *unstructured.Unstructured) (writeDecision, error) {
	if keepsCRD(d, live) {
		return writeDecision{}, nil // crd-policy Create: never updated
	}
	if live != nil {
		if err := s.checkTakenOver(d, item, live); err != nil {
			return writeDecision{}, err
		}
		if err := s.checkAdoption(d, live); err != nil {
			return writeDecision{}, err
		}
	}
	if s.lostCreate(d, item, live) {
		written := *item
		written.Digest = d.digest
		item = &written
	}
	return s.needsWrite(ctx, d, item, live)
}

// lostCreate tells whether live was created from this render by an earlier
// pass whose record of that create was lost (its status write failed): the
// inventory holds an older digest, the object the digest of this render.
// Such an object is not deleted and created again (update-policy recreate,
// Helm hooks): it is recorded as written.
func (s *ownerScope) lostCreate(d *desired, item *manifests.InventoryItem, live *unstructured.Unstructured) bool {
	return item.Digest != d.digest && s.createdFrom(live) == d.digest
}
