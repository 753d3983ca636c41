package component

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/conditions"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/keptrender"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/passtrace"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// renderOnce returns the objects to apply and their render: the current
// render while the inputs of a render (renderInputs) are those it was made
// from, else a new render, kept (keptrender.Currents) before any of it is
// applied. The objects are decoded from the render on every pass, so that
// each pass, and the pass after a restart, applies the same objects in the
// same form.
func (p *pass) renderOnce(ctx context.Context, tg *targets.Target) ([]client.Object, keptrender.Render, error) {
	ctx, reported := p.renderContext(ctx, tg)
	inputs, err := p.renderInputs(ctx)
	if err != nil {
		return nil, keptrender.Render{}, err
	}
	gvk, err := apiutil.GVKForObject(p.component, p.r.client.Scheme())
	if err != nil {
		return nil, keptrender.Render{}, fmt.Errorf("finding the kind of %s: %w", p.id, err)
	}
	cur, found, again, err := p.currentRender(ctx, gvk, inputs)
	if err != nil {
		return nil, keptrender.Render{}, Retriable(err, 0)
	}
	if !found {
		if cur, err = p.renderNew(ctx, inputs, reported); err != nil {
			return nil, keptrender.Render{}, err
		}
		cur.RenderedAgain = again
		cur = p.r.current.Keep(ctx, p.id, p.component, gvk, p.component.GetGeneration(), cur)
	}
	objects, err := cur.Render.Objects()
	if err != nil {
		return nil, keptrender.Render{}, err
	}
	if found {
		passtrace.KeptRender(ctx, len(objects))
	}
	p.resealLastGood(ctx)
	p.source, p.renderNotKept = cur.Source, joinNotes(cur.RenderedAgain, cur.NotKept)
	return objects, cur.Render, nil
}

// mayHaveKept tells whether a render of the component may be kept in a
// Secret: not before its first attempt, which the pass that keeps the
// first render records (so a new component costs no read).
func (p *pass) mayHaveKept() bool {
	status := p.component.GetStatus()
	return status.Attempt != nil || len(status.Inventory) > 0
}

// renderContext is ctx with what a generator reads: the target's reader
// and discovery, the component's info, and a report of its source.
func (p *pass) renderContext(ctx context.Context, tg *targets.Target) (context.Context, func() *manifests.SourceInfo) {
	status := p.component.GetStatus()
	ctx = manifests.WithClient(ctx, tg.RenderReader)
	ctx = manifests.WithDiscovery(ctx, tg.Discovery)
	ctx = manifests.WithComponentInfo(ctx, manifests.ComponentInfo{
		Object: p.component, OperatorName: p.r.name,
		Revision: p.component.GetGeneration(), FirstApply: conditions.IsInstall(status, p.component.GetGeneration()),
	})
	return manifests.WithSourceReport(ctx)
}

// renderNew calls the generator and encodes its objects as the render of
// inputs.
func (p *pass) renderNew(ctx context.Context, inputs string, reported func() *manifests.SourceInfo) (keptrender.Current, error) {
	objects, err := p.generate(ctx, reported)
	if err != nil {
		return keptrender.Current{}, err
	}
	if objects, err = asUnstructured(objects, p.r.objects); err != nil {
		return keptrender.Current{}, err
	}
	render, err := keptrender.Encode(objects)
	return keptrender.Current{Inputs: inputs, Render: render, Source: p.source}, err
}

// render calls the generator now, whatever the current render: for a
// preview of a spec, and for the delete hooks of one.
func (p *pass) render(ctx context.Context, tg *targets.Target) ([]client.Object, error) {
	ctx, reported := p.renderContext(ctx, tg)
	return p.generate(ctx, reported)
}

// generate calls the generator in a span of its own, and notes the source
// it reported.
func (p *pass) generate(ctx context.Context, reported func() *manifests.SourceInfo) ([]client.Object, error) {
	ctx, span := passtrace.Span(ctx, "render")
	objects, err := p.r.generator.Generate(ctx, p.settings.Namespace, p.settings.Name, p.component.GetSpec())
	p.source = reported()
	if span.IsRecording() {
		span.SetAttributes(passtrace.AttrObjects.Int(len(objects)))
		if p.source != nil {
			span.SetAttributes(passtrace.AttrRevision.String(p.source.Revision), passtrace.AttrDigest.String(p.source.Digest))
		}
	}
	spans.End(span, err)
	return objects, err
}

// renderInputs returns the digest of what the component's render depends
// on (keptrender.Inputs): its UID, generation, spec, placement, whether the
// render is an install or an upgrade, its force annotation, and what the
// generator declares (manifests.InputsDeclarer). A reconcile request is not
// one of them: the pass it asks for renders only if something it reads
// changed (the generator looks at its source at once for it). ctx is the
// render's context.
func (p *pass) renderInputs(ctx context.Context) (string, error) {
	generation := p.component.GetGeneration()
	in := keptrender.Inputs{
		UID: p.component.GetUID(), Generation: generation, Namespace: p.settings.Namespace, Name: p.settings.Name,
		Install: conditions.IsInstall(p.component.GetStatus(), generation), Forced: p.requested(AnnotationForce),
		Spec: p.component.GetSpec(),
	}
	if declarer, ok := p.r.generator.(manifests.InputsDeclarer); ok {
		declared, err := declarer.RenderInputs(ctx, p.settings.Namespace, p.settings.Name, p.component.GetSpec())
		if err != nil {
			return "", err
		}
		in.Declared = &declared
	}
	digest, err := in.Digest()
	if err != nil {
		return "", fmt.Errorf("the inputs of %s: %w", p.id, err)
	}
	return digest, nil
}

// asUnstructured converts the typed objects of a render, with their kind,
// so that the render's encoding carries every object's apiVersion and kind.
func asUnstructured(objects []client.Object, scheme *runtime.Scheme) ([]client.Object, error) {
	if objects == nil {
		return nil, nil
	}
	out := make([]client.Object, len(objects))
	for i, o := range objects {
		if _, ok := o.(*unstructured.Unstructured); ok || o == nil {
			out[i] = o
			continue
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return nil, fmt.Errorf("object %d: converting %T: %w", i+1, o, err)
		}
		converted := &unstructured.Unstructured{Object: u}
		if converted.GetKind() == "" {
			gvk, err := apiutil.GVKForObject(o, scheme)
			if err != nil {
				return nil, fmt.Errorf("object %d: finding the kind of %T: %w", i+1, o, err)
			}
			converted.SetGroupVersionKind(gvk)
		}
		out[i] = converted
	}
	return out, nil
}

// renderError says the generator failed. A generator error is the input's
// (a template, values, a chart) unless the generator said to retry.
func renderError(err error) error {
	err = fmt.Errorf("rendering: %w", err)
	if _, retriable := api.AsRetriable(err); retriable {
		return err
	}
	return &manifests.UserError{Err: err}
}
