package component

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// renderOnce is render, or the render that the write ahead of the Reconcile
// before kept (aheadRenders). It notes the objects for a write ahead of
// this Reconcile's pass.
func (p *pass[T]) renderOnce(ctx context.Context, tg *target) ([]client.Object, error) {
	if objects, source, ok := p.r.ahead.take(p.id, p.component); ok {
		p.source, p.rendered = source, objects
		keptRenderSpan(ctx, len(objects))
		return objects, nil
	}
	objects, err := p.render(ctx, tg)
	if err == nil {
		p.rendered = objects
	}
	return objects, err
}

// render calls the generator with the target's reader and discovery and the
// component's info in the context.
func (p *pass[T]) render(ctx context.Context, tg *target) ([]client.Object, error) {
	status := p.component.GetStatus()
	ctx = manifests.WithClient(ctx, tg.RenderReader)
	ctx = manifests.WithDiscovery(ctx, tg.Discovery)
	ctx = manifests.WithComponentInfo(ctx, manifests.ComponentInfo{
		Object: p.component, OperatorName: p.r.name,
		Revision: p.component.GetGeneration(), FirstApply: status.isInstall(p.component.GetGeneration()),
	})
	ctx, reported := manifests.WithSourceReport(ctx)
	ctx, span := startSpan(ctx, "render")
	objects, err := p.r.generator.Generate(ctx, p.settings.namespace, p.settings.name, p.component.GetSpec())
	p.source = reported()
	if span.IsRecording() {
		span.SetAttributes(attrObjects.Int(len(objects)))
		if p.source != nil {
			span.SetAttributes(attrRevision.String(p.source.Revision), attrDigest.String(p.source.Digest))
		}
	}
	spans.End(span, err)
	return objects, err
}

// renderError says the generator failed. A generator error is the input's
// (a template, values, a chart) unless the generator said to retry.
func renderError(err error) error {
	err = fmt.Errorf("rendering: %w", err)
	if _, retriable := asRetriable(err); retriable {
		return err
	}
	return &manifests.UserError{Err: err}
}
