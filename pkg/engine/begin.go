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

// decideFor asks decide about d for this scope's owner and records, in
// drift mode Warn, the drift it leaves.
func (s *ownerScope) decideFor(ctx context.Context, d *desired, item *manifests.InventoryItem, live *unstructured.Unstructured) decision {
	dec := decide(facts{
		desired: d, item: item, live: live, owner: s.ownership(),
		purgedAtRender: live == nil && d.policies.PurgeOrder != nil && s.purges.purgedAt(d.key, d.digest),
		now:            s.opts.Now().Unix(), drift: s.owner.Drift.Mode,
		drifted: func() ([]string, error) { return s.driftedFields(ctx, d, live), nil },
	})
	if dec.reason == reasonDriftLeft {
		s.drifts.add(Drift{Object: d.key, Paths: dec.paths, New: s.drift.firstReport(d.key, dec.paths, live.Object)})
	}
	return dec
}

// ownership is the owner of the scope as decide knows it.
func (s *ownerScope) ownership() ownership {
	return ownership{id: s.owner.ID, description: s.owner.Description, prefix: s.opts.Name, force: s.owner.Force}
}
