package component

import (
	"context"

	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/report"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/settings"
	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// pass is one Reconcile's pass over one component: it applies or deletes
// its objects in one engine pass at most (apply.go, delete.go), renders
// them (render.go), waits for what they depend on (waits.go), and carries
// out what attempts decide (attemptpass.go). Its status recorder writes the
// status and records the outcome (package report); its settings are the
// component's optional configurations, resolved once (package settings).
type pass struct {
	r         *core
	settings  settings.Settings // the component's optional configurations, resolved once
	status    *report.Recorder  // records the outcome; the one status write
	component Component
	id        types.NamespacedName
	source    *manifests.SourceInfo // where the generator said the objects come from
	externals *external.Pass        // the pass's dependents outside Kubernetes, if any
	// renderNotKept says why a new render is kept in memory only
	// (keptrender.Currents.Keep), or why it was rendered again, for the
	// Ready message.
	renderNotKept string
}

// fail turns an error of the pass into its outcome (failure); a target
// that did not answer is ReasonTargetUnreachable (unreachable.go).
func (p *pass) fail(err error) outcome.Outcome {
	return unreachable(err, outcome.Failure(err, p.settings.Retry, &p.status.Written), p.r.targets.HostOf(p.id))
}

// writeAhead writes the status ahead of the pass's new objects
// (report.Recorder.WriteAhead); the Reconcile after, which creates them,
// applies the same current render.
func (p *pass) writeAhead(ctx context.Context, items []manifests.InventoryItem) error {
	return p.status.WriteAhead(ctx, items)
}

// requested returns the value of the component annotation
// <operator name>/suffix.
func (p *pass) requested(suffix string) string {
	return p.component.GetAnnotations()[manifests.Key(p.r.name, suffix)]
}

// forceRequested tells whether the component asks for a forced pass that
// no pass has handled yet.
func (p *pass) forceRequested() bool {
	value := p.requested(AnnotationForce)
	return value != "" && value != p.component.GetStatus().LastHandledForceAt
}
