package engine

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/drift"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/foreign"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/live"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/runonce"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/writes"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ownerScope is the applier as one pass sees it: the owner whose objects it
// writes and deletes, and what its writes leave in the applier's caches.
// The Applier keeps what outlives a pass (caches, own writes, drift, the
// mapper); the owner-scoped operations are methods of ownerScope. What a
// pass leaves behind for the next one (own writes, drift matches and
// reports, purges) goes through track only: a live scope's cacheTracker
// records it, a dry-run scope's dryRunTracker can only read it.
type ownerScope struct {
	// a is the applier whose target, caches and options the pass uses; what
	// takes an owner is a method of ownerScope, what does not is a's.
	a     *Applier
	owner Owner
	track writeTracker
	// drifts collects what the pass found drifted and left so.
	drifts drift.Log
	// health are the owner's health checks, compiled by prepareFor.
	health readiness.HealthChecks
}

// scopeFor is the scope of a pass of owner: writes go to the target and are
// tracked in the applier's caches.
func (a *Applier) scopeFor(owner Owner) *ownerScope {
	return &ownerScope{a: a, owner: owner, track: cacheTracker{a}}
}

// dryRunScope is the scope of Preview and Diff: every write is a
// server-side dry run through a dry-run client, and the applier's
// bookkeeping is out of its reach: its copy of the applier holds no drift
// detector, own writes, write-loop guard or purges, and its dryRunTracker
// reads the real ones without changing them. A preview thus leaves the
// next pass's decisions and reports as they were.
func (a *Applier) dryRunScope(owner Owner) *ownerScope {
	dry := *a
	dry.target.Client = client.NewDryRunClient(a.target.Client)
	dry.target.deleter = nil // its requests are real: deletes go through the dry-run client
	dry.drift, dry.own, dry.loops, dry.purges = nil, nil, nil, nil
	return &ownerScope{a: &dry, owner: owner, track: dryRunTracker{drift: a.drift, purges: a.purges}}
}

// defaults merges the owner's defaults over the applier's.
func (s *ownerScope) defaults() manifests.Defaults {
	d := s.a.opts.Defaults
	o := s.owner.Defaults
	if o.Reconcile != "" {
		d.Reconcile = o.Reconcile
	}
	if o.Update != "" && o.Update != manifests.UpdateDefault {
		d.Update = o.Update
	}
	if o.Delete != "" && o.Delete != manifests.DeleteDefault {
		d.Delete = o.Delete
	}
	if o.Adoption != "" {
		d.Adoption = o.Adoption
	}
	if o.ReapplyInterval > 0 {
		d.ReapplyInterval = o.ReapplyInterval
	}
	if o.Namespace != "" {
		d.Namespace = o.Namespace
	}
	if o.CRDs != "" {
		d.CRDs = o.CRDs
	}
	return d
}

// ownership is the owner of the scope as decide knows it.
func (s *ownerScope) ownership() plan.Ownership {
	return plan.Ownership{ID: s.owner.ID, Description: s.owner.Description, Prefix: s.a.opts.Name, Force: s.owner.Force}
}

// writeTracker is told of each write and delete of a pass, before the
// request and after its answer, and holds what the pass finds about drift
// for the next one.
type writeTracker interface {
	writing(key manifests.ObjectKey)
	written(key manifests.ObjectKey, obj *unstructured.Unstructured, err error)
	// ran records whether the owner's run-once object ran at digest, as
	// the pass's outcome records it in the item.
	ran(owner types.UID, key manifests.ObjectKey, digest string, ran bool)
	deleting(key manifests.ObjectKey, uid types.UID)
	deleted(key manifests.ObjectKey, uid types.UID, err error)
	purged(key manifests.ObjectKey, digest string)
	// purgedAt tells whether the object was purged at digest.
	purgedAt(key manifests.ObjectKey, digest string) bool
	// holds tells, as driftDetector.holds does, whether the object is known
	// to hold the desired fields at version.
	holds(key manifests.ObjectKey, version string, ignore []manifests.Pointer) bool
	// drifted compares as driftDetector.drifted does.
	drifted(key manifests.ObjectKey, want, live map[string]any, version string, ignore []manifests.Pointer) []string
	// newDrift tells whether the drift was not reported yet.
	newDrift(key manifests.ObjectKey, paths []string, live map[string]any) bool
}

// cacheTracker records a pass's writes in the applier: own writes (to tell
// their watch events from others' changes), the live cache and drift.
type cacheTracker struct{ a *Applier }

func (t cacheTracker) writing(key manifests.ObjectKey) { t.a.own.Begin(key) }

func (t cacheTracker) written(key manifests.ObjectKey, obj *unstructured.Unstructured, err error) {
	if err != nil || obj == nil {
		t.a.own.End(key, "")
		return
	}
	version := obj.GetResourceVersion()
	if runonce.RunsOnce(obj.GroupVersionKind()) {
		t.a.runs.Put(key, obj.GetUID())
	}
	t.a.live.Remember(key, obj)
	t.a.drift.Accept(key, version)
	if t.a.own.End(key, version) {
		t.a.live.CaughtUp(key, version) // its event came first
	}
}

func (t cacheTracker) ran(owner types.UID, key manifests.ObjectKey, digest string, ran bool) {
	t.a.ranAt.Ran(owner, key, digest, ran)
}

// deleting records the deletion before the request: the delete event,
// which drops the record, may come before the answer.
func (t cacheTracker) deleting(key manifests.ObjectKey, uid types.UID) { t.a.live.Deleted(key, uid) }

func (t cacheTracker) deleted(key manifests.ObjectKey, uid types.UID, err error) {
	if err != nil {
		t.a.live.Undelete(key, uid)
	}
}

func (t cacheTracker) purged(key manifests.ObjectKey, digest string) { t.a.purges.Record(key, digest) }

func (t cacheTracker) purgedAt(key manifests.ObjectKey, digest string) bool {
	return t.a.purges.PurgedAt(key, digest)
}

func (t cacheTracker) holds(key manifests.ObjectKey, version string, ignore []manifests.Pointer) bool {
	return t.a.drift.Holds(key, version, ignore)
}

func (t cacheTracker) drifted(key manifests.ObjectKey, want, live map[string]any, version string, ignore []manifests.Pointer) []string {
	return t.a.drift.Drifted(key, want, live, version, ignore)
}

func (t cacheTracker) newDrift(key manifests.ObjectKey, paths []string, live map[string]any) bool {
	return t.a.drift.FirstReport(key, paths, live)
}

// dryRunTracker reads the applier's drift and purges and records nothing:
// dry runs change nothing, not even what the next pass reports.
type dryRunTracker struct {
	drift  *drift.Detector
	purges *writes.Purges
}

func (dryRunTracker) writing(manifests.ObjectKey)                                    {}
func (dryRunTracker) written(manifests.ObjectKey, *unstructured.Unstructured, error) {}
func (dryRunTracker) ran(types.UID, manifests.ObjectKey, string, bool)               {}
func (dryRunTracker) deleting(manifests.ObjectKey, types.UID)                        {}
func (dryRunTracker) deleted(manifests.ObjectKey, types.UID, error)                  {}
func (dryRunTracker) purged(manifests.ObjectKey, string)                             {}

func (t dryRunTracker) purgedAt(key manifests.ObjectKey, digest string) bool {
	return t.purges.PurgedAt(key, digest)
}

func (t dryRunTracker) holds(key manifests.ObjectKey, version string, ignore []manifests.Pointer) bool {
	return t.drift.Holds(key, version, ignore)
}

func (t dryRunTracker) drifted(key manifests.ObjectKey, want, live map[string]any, version string, ignore []manifests.Pointer) []string {
	paths, _ := t.drift.Compare(key, want, live, version, ignore)
	return paths
}

func (t dryRunTracker) newDrift(key manifests.ObjectKey, paths []string, live map[string]any) bool {
	return t.drift.WouldReport(key, paths, live)
}

// foreignInstances counts, per type, the instances of the managed types
// that the scope's owner did not make (package foreign).
func (s *ownerScope) foreignInstances(ctx context.Context, types []manifests.TypeInfo) (map[string]int, error) {
	c := foreign.Counter{Client: s.a.target.Client, Mapper: s.a.mapper, Discovery: s.a.target.Discovery,
		Scope: live.Scope(s.a.target.Live), OwnerLabel: s.a.OwnerLabel()}
	return c.Instances(ctx, s.owner.ID, types)
}
