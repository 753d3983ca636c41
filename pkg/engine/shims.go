package engine

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
)

// Names that files of work in progress elsewhere (runonce.go) still use;
// they go once that work has landed and those files use the packages
// directly.

type condition struct{ status, reason, message string }

func conditionsOf(u *unstructured.Unstructured) map[string]condition {
	out := map[string]condition{}
	for t, c := range readiness.Conditions(u) {
		out[t] = condition{status: c.Status, reason: c.Reason, message: c.Message}
	}
	return out
}

func withReason(reason, message string) string { return readiness.WithReason(reason, message) }
