package engine

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ObjectError keeps the message "<action> <object>: <cause>" and lets
// NeedsChange and errors.As see the cause.
func TestObjectError(t *testing.T) {
	key := manifests.ObjectKey{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: "web"}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("no"))
	tests := []struct {
		name        string
		err         error
		message     string
		needsChange bool
	}{
		{"forbidden", objectError("applying", key, forbidden), "applying apps/Deployment ns/web: " + forbidden.Error(), true},
		{"immutable", objectError("applying", key, &ImmutableFieldError{Fields: []string{"spec.selector"}, PolicyKey: "p/update-policy", Err: errors.New("x")}),
			"applying apps/Deployment ns/web: field spec.selector is immutable; set p/update-policy: replace-on-immutable to re-create the object when this happens: x", true},
		{"transient", objectError("purging", key, errors.New("connection refused")), "purging apps/Deployment ns/web: connection refused", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.message {
				t.Errorf("message = %q, want %q", got, tt.message)
			}
			if got := NeedsChange(tt.err); got != tt.needsChange {
				t.Errorf("NeedsChange = %v, want %v", got, tt.needsChange)
			}
			var oe *ObjectError
			if !errors.As(tt.err, &oe) || oe.Object != key {
				t.Errorf("errors.As(ObjectError) = %v, %v", oe, key)
			}
		})
	}
	if objectError("applying", key, nil) != nil {
		t.Error("objectError of nil is not nil")
	}
}
