package releases

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/errlines"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// releaseApply applies the objects of one release and keeps its Secret.
type releaseApply struct {
	store    releaseStore
	rel      *release
	revision int64 // the revision this apply records when it writes
	wrote    bool  // whether any pass wrote an object or the inventory
	source   string
	objects  []client.Object
	// namespacePolicy says whether missing namespaces are created.
	namespacePolicy manifests.NamespacePolicy
	// drift are the drift settings of this apply, recorded in the release.
	drift   manifests.DriftSettings
	drifted []driftedObject // what the last pass found drifted and left
	// healthChecks of this apply, recorded in the release.
	healthChecks []manifests.HealthCheck
	// rolledBackTo is the revision whose render this apply re-applies.
	rolledBackTo int64
	// rendered and digest are the objects as the history records them.
	rendered []map[string]any
	digest   string
	applier  *engine.Applier
	waker    *waker
	progress progress
	stderr   io.Writer
}

func newReleaseApply(ctx context.Context, cl *session.Cluster, store releaseStore, rel *release, objects []client.Object, s *session.Session) (*releaseApply, error) {
	applier, w, err := newReleaseApplier(ctx, cl, rel, objects)
	if err != nil {
		return nil, err
	}
	return &releaseApply{
		store: store, rel: rel, revision: rel.Revision + 1, source: rel.Source, drift: rel.Drift, drifted: rel.Drifted, healthChecks: rel.HealthChecks,
		objects: objects, applier: applier, waker: w, progress: newProgress(s.Stdout, rel), stderr: s.Stderr,
	}, nil
}

// newReleaseApplier returns an applier for objects, the next objects of
// rel (nil when it deletes them), over a cache that ctx bounds (see
// releaseTarget), and a waker on that cache, which tells the applier of
// deleted objects.
func newReleaseApplier(ctx context.Context, cl *session.Cluster, rel *release, objects []client.Object) (*engine.Applier, *waker, error) {
	target, err := releaseTarget(ctx, cl, rel, objects)
	if err != nil {
		return nil, nil, err
	}
	applier, err := target.NewApplier()
	if err != nil {
		return nil, nil, err
	}
	return applier, newWaker(target.Cache, applier.ObjectGone), nil
}

// releaseTarget watches the objects that rel's operator name owns in the
// namespaces of rel (releaseNamespaces) and those of no namespace. A cache
// of every namespace listed, at each command, the objects of every release
// applied under the same operator name: with 20 releases of 500 objects, 10
// 000 objects decoded to apply one. An object outside those namespaces is
// read directly.
func releaseTarget(ctx context.Context, cl *session.Cluster, rel *release, objects []client.Object) (*engine.CachedTarget, error) {
	opts := engine.DefaultCachedTargetOptions(rel.OperatorName)
	opts.Namespaces = releaseNamespaces(rel, objects)
	target, err := engine.NewCachedTarget(ctx, cl.Config, cl.Scheme, opts)
	if err != nil {
		return nil, fmt.Errorf("watching the cluster at %s: %w", cl.Config.Host, err)
	}
	return target, nil
}

// releaseNamespaces are rel's namespace and those that objects and rel's
// inventory name, sorted.
func releaseNamespaces(rel *release, objects []client.Object) []string {
	seen := map[string]bool{rel.Namespace: true}
	for _, obj := range objects {
		seen[obj.GetNamespace()] = true
	}
	for _, item := range rel.Inventory {
		seen[item.Namespace] = true
	}
	delete(seen, "")
	return slices.Sorted(maps.Keys(seen))
}

func (a *releaseApply) owner() engine.Owner {
	owner := a.rel.owner()
	owner.Generation = a.revision
	owner.Defaults.Namespace = a.namespacePolicy
	owner.Drift = a.drift
	owner.HealthChecks = a.healthChecks
	return owner
}

// pass runs one Apply pass and records its outcome in the Secret when the
// inventory, the state or the message changed.
func (a *releaseApply) pass(ctx context.Context) (engine.Result, error) {
	ctx, span := passSpan(ctx)
	res, err := a.applier.Apply(ctx, a.owner(), a.objects, a.rel.Inventory, a.saveInventory)
	endPass(span, res.Done, err)
	if res.Changed {
		a.wrote = true
	}
	if err != nil {
		// A release that exists records the failure; a new one whose first
		// pass wrote nothing is not created (bad input changes nothing).
		failed := a.rel.secret != nil && (a.rel.State != StateFailed || a.rel.Message != oneLine(err))
		if failed || !sameInventory(a.rel.Inventory, res.Inventory) {
			_ = a.persist(ctx, res.Inventory, StateFailed, oneLine(err))
		}
		return res, err
	}
	a.noteDrift(res)
	state, message := StateReady, res.BlockedMessage()
	if !res.Done {
		state = StateProgressing
		message = fmt.Sprintf("waiting in wave %d for %s", res.Wave, summarize(res.Waiting))
	}
	if a.wrote || state != a.rel.State || message != a.rel.Message || !sameInventory(a.rel.Inventory, res.Inventory) || a.driftChanged() {
		if err := a.persist(ctx, res.Inventory, state, message); err != nil {
			return res, err
		}
	}
	return res, nil
}

// saveInventory is the applier's SaveFunc: it records the inventory before
// objects new to it are created.
func (a *releaseApply) saveInventory(ctx context.Context, items []manifests.InventoryItem) error {
	a.wrote = true
	return a.persist(ctx, items, StateProgressing, "applying")
}

func (a *releaseApply) persist(ctx context.Context, items []manifests.InventoryItem, state, message string) error {
	next := *a.rel
	next.Inventory, next.State, next.Message = items, state, message
	next.Drift, next.Drifted, next.HealthChecks = a.drift, a.drifted, a.healthChecks
	hooks, err := hookData(a.objects, a.rel.OperatorName)
	if err != nil {
		return err
	}
	next.DeleteHooks = hooks
	next.Installed = next.Installed || state == StateReady
	next.Source, next.Updated = a.source, time.Now()
	if a.wrote {
		next.Revision = a.revision
		if err := a.record(&next); err != nil {
			return err
		}
	}
	if err := a.store.save(ctx, &next); err != nil {
		return err
	}
	*a.rel = next
	return nil
}

// record puts this apply's revision, with its objects and how it stands,
// into the release's history.
func (a *releaseApply) record(next *release) error {
	if a.rendered == nil {
		rendered, digest, err := renderRecord(a.objects)
		if err != nil {
			return err
		}
		a.rendered, a.digest = rendered, digest
	}
	next.History = withRecord(next.History, revisionRecord{
		Revision: a.revision, Source: a.source, Updated: next.Updated, State: next.State, Message: next.Message,
		Digest: a.digest, RolledBackTo: a.rolledBackTo, Objects: a.rendered,
	})
	return nil
}

func sameInventory(a, b []manifests.InventoryItem) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// maxListed is how many waiting objects messages name.
const maxListed = 3

// summarize names the first few waiting objects.
func summarize(waiting []engine.Waiting) string {
	if len(waiting) == 0 {
		return "nothing"
	}
	return engine.Summarize(waiting, maxListed)
}

// hookData returns the delete hooks among objects as the release records
// them, for delete to run.
func hookData(objects []client.Object, prefix string) ([]map[string]any, error) {
	hooks := engine.DeleteHooks(objects, prefix)
	out := make([]map[string]any, 0, len(hooks))
	for _, hook := range hooks {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(hook)
		if err != nil {
			return nil, fmt.Errorf("recording delete hook %s: %w", hook.GetName(), err)
		}
		out = append(out, content)
	}
	return out, nil
}

// oneLine joins the lines of a message (errors.Join makes several) for the
// release's stored message.
func oneLine(err error) string {
	return strings.Join(errlines.Lines(err), "; ")
}
