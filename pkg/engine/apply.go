package engine

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Apply brings the cluster to the rendered objects, wave by wave, and prunes
// what left the manifests. It makes one pass: when a wave is not ready yet it
// returns with Done false, and the caller runs it again later (on an event of
// a dependent, or after a requeue). Invalid objects fail the run before any
// write. save is called before objects new to the inventory are created.
func (a *Applier) Apply(ctx context.Context, owner Owner, objects []client.Object, inventory []manifests.InventoryItem, save SaveFunc) (Result, error) {
	run, objs, added, err := a.scopeFor(owner).begin(ctx, objects, inventory)
	if err != nil {
		return Result{Inventory: inventory}, err
	}
	if added {
		if err := save(ctx, run.inventory()); err != nil {
			return Result{Inventory: inventory}, fmt.Errorf("recording the inventory before creating objects: %w", err)
		}
	}
	return run.execute(ctx, planApply(objs, run.items, run.list()), byKey(objs), nil)
}

// byKey indexes desired objects by their key.
func byKey(objs []*desired) map[manifests.ObjectKey]*desired {
	out := make(map[manifests.ObjectKey]*desired, len(objs))
	for _, d := range objs {
		out[d.key] = d
	}
	return out
}

// withoutHooks leaves out the objects Apply never applies: delete hooks,
// which run on deletion, and tests, which only a test run creates.
func withoutHooks(objects []client.Object, prefix string) []client.Object {
	deleteKey, testKey := manifests.Key(prefix, manifests.AnnotationDeleteHook), manifests.Key(prefix, manifests.AnnotationTestHook)
	return filterObjects(objects, func(annotations map[string]string) bool {
		return !manifests.IsDeleteHook(annotations[deleteKey]) && !manifests.IsTestHook(annotations[testKey])
	})
}

// DeleteHooks returns the objects that only run on deletion: those with a
// valid <prefix>/delete-hook annotation.
func DeleteHooks(objects []client.Object, prefix string) []client.Object {
	key := manifests.Key(prefix, manifests.AnnotationDeleteHook)
	return filterObjects(objects, func(annotations map[string]string) bool { return manifests.IsDeleteHook(annotations[key]) })
}

// TestHooks returns the tests among objects: those with a valid
// <prefix>/test-hook annotation, which only Test creates.
func TestHooks(objects []client.Object, prefix string) []client.Object {
	key := manifests.Key(prefix, manifests.AnnotationTestHook)
	return filterObjects(objects, func(annotations map[string]string) bool { return manifests.IsTestHook(annotations[key]) })
}

// filterObjects keeps the objects whose annotations keep says to. An object
// with an invalid delete-hook or test-hook value is no hook: it stays with
// the others, whose validation then names the bad value.
func filterObjects(objects []client.Object, keep func(annotations map[string]string) bool) []client.Object {
	out := make([]client.Object, 0, len(objects))
	for _, obj := range objects {
		if keep(obj.GetAnnotations()) {
			out = append(out, obj)
		}
	}
	return out
}

func groupByWave(objs []*desired) [][]*desired {
	var waves [][]*desired
	for i, d := range objs {
		if i == 0 || d.policies.ApplyOrder != objs[i-1].policies.ApplyOrder {
			waves = append(waves, nil)
		}
		waves[len(waves)-1] = append(waves[len(waves)-1], d)
	}
	return waves
}

func groupByStage(objs []*desired) [][]*desired {
	var stages [][]*desired
	for i, d := range objs {
		if i == 0 || d.stage != objs[i-1].stage {
			stages = append(stages, nil)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], d)
	}
	return stages
}

// reconcileObject writes one object if it needs it and reports, as its
// outcome, what it wrote and the phase and readiness the object reached.
// It reads item and does not change it.
func (s *ownerScope) reconcileObject(ctx context.Context, d *desired, item *manifests.InventoryItem) outcome {
	o := outcome{key: d.key}
	if (item.Phase == manifests.PhaseCompleted || beingPurged(d, item)) && item.Digest == d.digest {
		return o
	}
	live, err := s.live.get(ctx, d.gvk, d.key)
	if err != nil {
		o.err = err
		return o
	}
	if live == nil && d.policies.PurgeOrder != nil && s.purges.purgedAt(d.key, d.digest) {
		// Purged at this render by an earlier pass whose record was lost.
		o.written, o.digest, o.appliedAt = true, d.digest, item.LastAppliedAt
		o.phase, o.status, o.setStatus = manifests.PhaseCompleted, "", true
		return o
	}
	decision, err := s.decide(ctx, d, item, live)
	if err != nil {
		return failed(o, err)
	}
	if s.lostCreate(d, item, live) {
		// Record the create now; decide did not create it again.
		o.written, o.digest, o.appliedAt = true, d.digest, item.LastAppliedAt
	}
	phase := item.Phase
	if decision.write {
		action := ActionUpdate
		if live == nil {
			action = ActionCreate
		}
		out, err := s.correct(ctx, d, live, decision)
		if err != nil {
			o.err = objectError(ActionApply, d.key, err)
			return o
		}
		live = out.live
		o.action, o.changed = action, true
		o.written, o.digest = true, d.digest
		if d.policies.ReapplyInterval > 0 {
			o.appliedAt = s.opts.Now().Unix()
		}
		phase = writePhase(phase, action == ActionCreate)
		if out.replaced != nil {
			return replacing(o, phase, out.replaced)
		}
	}
	hint := d.policies.StatusHint
	if live != nil && !hint.HasObservedGeneration {
		hint.HasObservedGeneration = s.reportsObservedGeneration(ctx, d.gvk)
	}
	o.phase, o.status = readinessPhase(phase, live, s.health, hint)
	o.setStatus = true
	return o
}

// replacing is o for an object that replace-on-immutable deleted to create
// it again: the action and the status name the immutable fields.
func replacing(o outcome, phase manifests.Phase, immutable *ImmutableFieldError) outcome {
	o.action, o.detail = ActionReplace, immutable.reason()
	o.phase, o.status, o.setStatus = phase, "re-creating, since "+o.detail+"; waiting for the old object to be deleted", true
	return o
}

// failed is o turned into a failure: the object is in error, and says why.
func failed(o outcome, err error) outcome {
	o.phase, o.status, o.setStatus, o.err = manifests.PhaseError, err.Error(), true, err
	return o
}

// beingPurged tells whether the object is on its way out at the end of its
// purge wave; it then counts as done for its own wave.
func beingPurged(d *desired, item *manifests.InventoryItem) bool {
	return d.policies.PurgeOrder != nil && item.Phase == manifests.PhaseDeleting
}

// writeDecision says whether an object is written and whether the write is
// a correction: it undoes, at an unchanged render, what others did (a drift,
// a deletion), which the write-loop guard counts. paths are the drifted
// fields.
type writeDecision struct {
	write      bool
	correction bool
	paths      []string
}

// needsWrite decides by reconcile policy, the owner's force, digest, drift
// and reapply interval.
func (s *ownerScope) needsWrite(ctx context.Context, d *desired, item *manifests.InventoryItem, live *unstructured.Unstructured) (writeDecision, error) {
	switch {
	case live == nil:
		return writeDecision{write: true, correction: item.Digest == d.digest}, nil
	case live.GetDeletionTimestamp() != nil:
		return writeDecision{}, nil // being deleted (by us for recreate, or by someone else): wait
	case d.policies.Reconcile == manifests.ReconcileOnce:
		return writeDecision{}, nil
	case s.owner.Force, item.Digest != d.digest:
		return writeDecision{write: true}, nil
	case d.policies.ReapplyInterval > 0 && s.opts.Now().Unix()-item.LastAppliedAt >= int64(d.policies.ReapplyInterval.Seconds()):
		return writeDecision{write: true}, nil
	}
	paths, err := s.correctDrift(ctx, d, live)
	return writeDecision{write: len(paths) > 0, correction: true, paths: paths}, err
}

// writePhase is the phase of an object just written: Creating until it
// first was ready, and whenever it is created anew (a purged hook in its
// next upgrade), else Updating.
func writePhase(previous manifests.Phase, created bool) manifests.Phase {
	if created || previous == manifests.PhaseScheduled || previous == manifests.PhaseCreating || previous == "" {
		return manifests.PhaseCreating
	}
	return manifests.PhaseUpdating
}

// readinessPhase is the phase and status of an object in phase, judged by
// its live object (by the owner's health checks of its kind, else kstatus);
// nil means the object is on its way (being recreated).
func readinessPhase(phase manifests.Phase, live *unstructured.Unstructured, health healthChecks, hint manifests.StatusHint) (manifests.Phase, string) {
	if live == nil {
		return phase, "waiting for the old object to be deleted"
	}
	r, judged := health.judge(live)
	if !judged {
		r = computeReadiness(live, hint)
	}
	status := string(r.Status)
	if r.Message != "" && !r.ready() {
		status += ": " + r.Message
	}
	switch {
	case r.ready():
		return manifests.PhaseReady, "" // Ready says Current
	case r.failed():
		return manifests.PhaseError, status
	case phase == manifests.PhaseReady || phase == manifests.PhaseError:
		return manifests.PhaseUpdating, status
	}
	return phase, status
}
