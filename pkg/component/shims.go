package component

import (
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/dependencies"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/report"
)

// Names that files of work in progress elsewhere (setup.go)
// still use; they go once that work has landed and those files use the
// packages directly.

// boundedRecorder is bound.Recorder under the name setup.go gives it.
type boundedRecorder struct {
	recorder.EventRecorder
}

func (b boundedRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	bound.Recorder{EventRecorder: b.EventRecorder}.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

func (b boundedRecorder) AnnotatedEventf(regarding, related runtime.Object, annotations map[string]string, eventtype, reason, action, note string, args ...any) {
	bound.Recorder{EventRecorder: b.EventRecorder}.AnnotatedEventf(regarding, related, annotations, eventtype, reason, action, note, args...)
}

// dependencyTracker is dependencies.Tracker under the names setup.go uses.
type dependencyTracker struct {
	*dependencies.Tracker
	enabled bool
}

func newDependencyTracker[T Component](c client.Client, apiReader client.Reader, selector labels.Selector) *dependencyTracker {
	t := dependencies.New(c, apiReader, selector, func() api.Component { return newObject[T]() })
	return &dependencyTracker{Tracker: t, enabled: t.Enabled()}
}

func (t *dependencyTracker) watchOutside(mgr ctrl.Manager) error { return t.WatchOutside(mgr) }

func (t *dependencyTracker) events() handler.TypedEventHandler[client.Object, reconcile.Request] {
	return t.Events()
}

// writtenStatus is report.Written under the names setup.go uses.
type writtenStatus struct{ *report.Written }

func (w writtenStatus) caughtUp(cached client.Object) { w.CaughtUp(cached) }

func (w writtenStatus) uncached(obj client.Object) { w.Uncached(obj) }
