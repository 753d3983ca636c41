package passtrace

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// tracerName names the spans of a Reconcile: the Reconcile and its read,
// render and status write, by the name of package component, which users
// know them by. The engine's (plan, waves, Jobs, tests) are
// children of them, from the same provider.
const tracerName = "github.com/wavekit-dev/wavekit/pkg/component"

// Attribute keys of the spans of a Reconcile. They carry names, kinds and
// counts, never an object's data: a Secret's values stay out of traces.
const (
	attrNamespace  = attribute.Key("k8s.namespace.name")
	attrName       = attribute.Key("wavekit.component.name")
	attrGeneration = attribute.Key("wavekit.component.generation")
	attrUID        = attribute.Key("wavekit.component.uid")
	attrOutcome    = attribute.Key("wavekit.outcome")
	attrReason     = attribute.Key("wavekit.reason")
	attrWrites     = attribute.Key("wavekit.objects.written")
	AttrObjects    = attribute.Key("wavekit.objects")
	AttrRevision   = attribute.Key("wavekit.source.revision")
	AttrDigest     = attribute.Key("wavekit.source.digest")
	attrKept       = attribute.Key("wavekit.render.kept")
)

// Tracer remembers, per component, the span of the last Reconcile that
// left work for the next one (a wave waiting, a write ahead), so that the
// next Reconcile's span links to it and a rollout can be followed from
// its first pass to Ready. It is nil while tracing is off.
type Tracer struct {
	tracer trace.Tracer
	mu     sync.Mutex
	last   map[types.NamespacedName]trace.SpanContext
}

// New returns the Tracer of the provider tp, nil while tracing is off.
func New(tp trace.TracerProvider) *Tracer {
	if _, off := tp.(noop.TracerProvider); off || tp == nil {
		return nil
	}
	return &Tracer{tracer: tp.Tracer(tracerName), last: map[types.NamespacedName]trace.SpanContext{}}
}

// Start starts the span of a Reconcile of id, linked to the span of the
// Reconcile before it when that one left work for this one. Without
// tracing it returns ctx and a span that records nothing, and allocates
// nothing. The logger in the returned context carries the trace and span
// IDs of a sampled trace.
func (p *Tracer) Start(ctx context.Context, id types.NamespacedName) (context.Context, trace.Span) {
	if p == nil {
		return ctx, trace.SpanFromContext(ctx)
	}
	p.mu.Lock()
	prev, linked := p.last[id]
	p.mu.Unlock()
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}
	if linked {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: prev,
			Attributes: []attribute.KeyValue{attribute.String("wavekit.link", "the pass before, which left work for this one")}}))
	}
	ctx, span := p.tracer.Start(ctx, "Reconcile", opts...)
	if !span.IsRecording() {
		return ctx, span
	}
	span.SetAttributes(attrNamespace.String(id.Namespace), attrName.String(id.Name))
	if sc := span.SpanContext(); sc.IsSampled() {
		ctx = log.IntoContext(ctx, log.FromContext(ctx).WithValues("trace_id", sc.TraceID().String(), "span_id", sc.SpanID().String()))
	}
	return ctx, span
}

// End ends the span of a Reconcile of id with its outcome, and remembers
// it for the next Reconcile when this one left work for it (continues).
func (p *Tracer) End(span trace.Span, id types.NamespacedName, result string, o *outcome.Outcome, continues bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if continues {
		p.last[id] = span.SpanContext()
	} else {
		delete(p.last, id)
	}
	p.mu.Unlock()
	if span.IsRecording() {
		span.SetAttributes(attrOutcome.String(result))
		if o != nil {
			span.SetAttributes(attrReason.String(o.Reason))
			if o.Warns() {
				spans.Fail(span, o.Err, o.Message)
			}
		}
	}
	span.End()
}

// Forget drops what is remembered of id: a component gone, or another
// shard's now.
func (p *Tracer) Forget(id types.NamespacedName) {
	if p == nil {
		return
	}
	p.mu.Lock()
	delete(p.last, id)
	p.mu.Unlock()
}

// Describe adds what was read of the component to the span of its Reconcile.
func Describe(span trace.Span, c client.Object) {
	if span.IsRecording() {
		span.SetAttributes(attrGeneration.Int64(c.GetGeneration()), attrUID.String(string(c.GetUID())))
	}
}

// KeptRender records, as the render's span, that the pass applies the
// current render, whose inputs did not change (keptrender.Currents): the
// generator did not run.
func KeptRender(ctx context.Context, objects int) {
	_, span := Span(ctx, "render")
	if span.IsRecording() {
		span.SetAttributes(attrKept.Bool(true), AttrObjects.Int(objects))
	}
	spans.End(span, nil)
}

// Span starts a child span of a Reconcile (spans.Start).
func Span(ctx context.Context, name string) (context.Context, trace.Span) {
	return spans.Start(ctx, tracerName, name)
}

// TraceID is the ID of the sampled trace in ctx, or "" when there is none
// (tracing off, or a trace not sampled, so not exported).
func TraceID(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsSampled() {
		return ""
	}
	return sc.TraceID().String()
}
