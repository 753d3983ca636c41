package component

import (
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
)

// Names that files of work in progress elsewhere (setup.go, renderstore.go)
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

func byteSize(n int) string { return bound.ByteSize(n) }
