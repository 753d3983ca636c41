package engine

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// The engine's spans are children of the span in the context its caller
// gives (a Reconcile's, a CLI run's), from the same TracerProvider: the
// plan, each wave, each run-once object (a hook Job) and each test. The
// pure planning functions have none: the spans sit at the I/O boundaries
// and in the executor. When the span in the context records nothing
// (tracing off, or a trace not sampled) no span starts and nothing is
// allocated.

const tracerName = "github.com/wavekit-dev/wavekit/pkg/engine"

// Attribute keys of the engine's spans: names, kinds and counts, never an
// object's data, so that a Secret's values stay out of traces.
const (
	attrWave      = attribute.Key("wavekit.wave")
	attrDirection = attribute.Key("wavekit.wave.direction")
	attrDone      = attribute.Key("wavekit.wave.done")
	attrCreated   = attribute.Key("wavekit.objects.created")
	attrUpdated   = attribute.Key("wavekit.objects.updated")
	attrUnchanged = attribute.Key("wavekit.objects.unchanged")
	attrDeleted   = attribute.Key("wavekit.objects.deleted")
	attrWaiting   = attribute.Key("wavekit.objects.waiting")
	attrHeldBy    = attribute.Key("wavekit.wave.held_by")
	attrObjects   = attribute.Key("wavekit.objects")
	attrGroups    = attribute.Key("wavekit.plan.groups")
	attrKind      = attribute.Key("k8s.object.kind")
	attrNamespace = attribute.Key("k8s.namespace.name")
	attrName      = attribute.Key("k8s.object.name")
	attrPhase     = attribute.Key("wavekit.object.phase")
	attrStatus    = attribute.Key("wavekit.object.status")
)

// heldByShown bounds the objects a wave's span names as holding it.
const heldByShown = 10

// startSpan starts a span of the engine's (spans.Start).
func startSpan(ctx context.Context, name string) (context.Context, trace.Span) {
	return spans.Start(ctx, tracerName, name)
}

// objectAttributes name an object in a span.
func objectAttributes(span trace.Span, gvk string, key manifests.ObjectKey) {
	span.SetAttributes(attrKind.String(gvk), attrNamespace.String(key.Namespace), attrName.String(key.Name))
}

// waveSpans keeps the span of the wave a pass executes: a wave's groups
// (apply by stage, wait, purge; or delete hooks and deletes) share one
// span, which ends with what the wave did and what held it.
type waveSpans struct {
	on     bool
	parent context.Context
	ctx    context.Context // the wave's, with its span
	span   trace.Span
	key    waveKey
	// where the pass was when the wave began, and the apply steps seen.
	actions, waiting, steps int
}

type waveKey struct {
	direction string
	wave      int16
}

// enter returns the context of g's wave, starting its span when g is the
// first group of a wave.
func (w *waveSpans) enter(r *pass, g plan.Group) context.Context {
	if !w.on {
		return w.parent
	}
	key := waveKey{direction: direction(g), wave: g.Wave}
	if w.span == nil || key != w.key {
		w.end(r, nil, true)
		var ctx context.Context
		ctx, w.span = startSpan(w.parent, "wave")
		w.span.SetAttributes(attrWave.Int(int(g.Wave)), attrDirection.String(key.direction))
		w.key, w.actions, w.waiting, w.steps = key, len(r.actions), len(r.waiting), 0
		w.ctx = ctx
	}
	if g.Kind == GroupApply {
		w.steps += len(g.Steps)
	}
	return w.ctx
}

// end ends the span of the wave under way, if any, with err and whether
// the wave is done.
func (w *waveSpans) end(r *pass, err error, done bool) {
	if !w.on || w.span == nil {
		return
	}
	counts := map[Action]int{}
	for _, a := range r.actions[w.actions:] {
		counts[a.Action]++
	}
	written := counts[ActionCreate] + counts[ActionUpdate] + counts[ActionReplace]
	waiting := r.waiting[w.waiting:]
	w.span.SetAttributes(attrDone.Bool(done && err == nil),
		attrCreated.Int(counts[ActionCreate]), attrUpdated.Int(counts[ActionUpdate]+counts[ActionReplace]),
		attrDeleted.Int(counts[ActionDelete]+counts[ActionPurge]+counts[ActionPrune]), attrWaiting.Int(len(waiting)))
	if err == nil {
		// A failed wave's objects that were not written may have failed:
		// the error names them, and none is counted unchanged.
		w.span.SetAttributes(attrUnchanged.Int(max(w.steps-written, 0)))
	}
	if len(waiting) > 0 {
		held := make([]string, 0, min(len(waiting), heldByShown))
		for _, wt := range waiting[:min(len(waiting), heldByShown)] {
			held = append(held, wt.String())
		}
		w.span.SetAttributes(attrHeldBy.StringSlice(held))
	}
	spans.End(w.span, err)
	w.span = nil
}

// direction is what a group's wave does: apply (its objects, its purges
// and the Externals' applies), prune, or delete.
func direction(g plan.Group) string {
	switch {
	case g.Kind == GroupPrune || (g.Kind == GroupExternal && g.External == ActionPrune):
		return "prune"
	case g.Kind == GroupDelete || g.Kind == GroupHook || (g.Kind == GroupExternal && g.External == ActionDelete):
		return "delete"
	}
	return "apply"
}

// runOnceSpan starts the span of a run-once object's step (a hook Job).
func runOnceSpan(ctx context.Context, d *plan.Desired) (context.Context, trace.Span) {
	ctx, span := startSpan(ctx, "job")
	if span.IsRecording() {
		objectAttributes(span, d.GVK.Kind, d.Key)
	}
	return ctx, span
}

// endObjectSpan ends the span of one object's step with its outcome.
func endObjectSpan(span trace.Span, o plan.Outcome) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attrPhase.String(string(o.Phase)))
	if o.Status != "" {
		span.SetAttributes(attrStatus.String(o.Status))
	}
	err := o.Err
	if err == nil && o.Phase == manifests.PhaseError {
		span.SetStatus(codes.Error, o.Status)
	}
	spans.End(span, err)
}
