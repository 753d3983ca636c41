package component

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/attempts"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/keptrender"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
)

// attempts returns what decides the component's attempts, as of now.
func (p *pass) attempts() attempts.Policy {
	return attempts.Policy{Remediation: p.settings.Remediation, Retry: p.settings.Retry, Requeue: p.settings.Requeue, Now: metav1.Now()}
}

// beginAttempt returns the attempt at this render (attempts.begin), rolled
// back at once if its reconcile request asks for a rollback.
func (p *pass) beginAttempt(render keptrender.Render) *Attempt {
	a, status := p.attempts(), p.component.GetStatus()
	att := a.Begin(status, p.component.GetGeneration(), render.Digest, p.requested(AnnotationReconcileRequestedAt))
	a.RollBackOnRequest(status, att, p.requested(AnnotationRollbackRequestedAt))
	return att
}

// settleAttempt records how a try at the render ended (attempts.settle);
// Ready keeps the render for a rollback.
func (p *pass) settleAttempt(ctx context.Context, render keptrender.Render, out outcome.Outcome) outcome.Outcome {
	a := p.attempts()
	status := p.component.GetStatus()
	out = a.Settle(status, p.source, out)
	if out.Reason != ReasonReady || status.Attempt == nil || !a.KeepsRender(status, render.Digest) {
		return out
	}
	if warning := p.keepRender(ctx, status.Attempt, render); warning != "" {
		out.Message += "; " + warning
	}
	return out
}

// keepRender keeps a Ready render for a rollback. It returns what went
// wrong for the Ready message: the component stays Ready, with its older
// kept render (if any) as what a rollback applies.
func (p *pass) keepRender(ctx context.Context, att *Attempt, render keptrender.Render) string {
	gvk, err := apiutil.GVKForObject(p.component, p.r.client.Scheme())
	if err != nil {
		return "the render is not kept for a rollback: " + err.Error()
	}
	name, err := p.r.renders.Save(ctx, p.component, gvk, att.Generation, render)
	if err != nil {
		return "the render is not kept for a rollback: " + err.Error()
	}
	p.component.GetStatus().LastGoodRender = &StoredRender{Generation: att.Generation, RenderDigest: render.Digest, Source: p.source.DeepCopy(), Secret: name}
	return ""
}
