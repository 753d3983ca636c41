package api

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ObjectError keeps the message of every per-object failure a pass
// reports, names the failed step's action, and lets NeedsChange and
// errors.As see the cause.
func TestObjectError(t *testing.T) {
	key := manifests.ObjectKey{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: "web"}
	job := manifests.ObjectKey{Group: "batch", Kind: "Job", Namespace: "ns", Name: "migrate"}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("no"))
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "batch", Kind: "Job"}, "migrate", nil)
	backoff := errors.New("Failed: BackoffLimitExceeded: Job has reached the specified backoff limit")
	tests := []struct {
		name        string
		err         error
		object      manifests.ObjectKey
		action      Action
		message     string
		needsChange bool
	}{
		{"forbidden", StepError(ActionApply, key, forbidden), key, ActionApply, "applying apps/Deployment ns/web: " + forbidden.Error(), true},
		{"immutable", StepError(ActionApply, key, &ImmutableFieldError{Fields: []string{"spec.selector"}, PolicyKey: "p/update-policy", Err: errors.New("x")}), key, ActionApply,
			"applying apps/Deployment ns/web: field spec.selector is immutable; set p/update-policy: replace-on-immutable to re-create the object when this happens: x", true},
		{"dry run", WordedError(ActionApply, WordingDryRun, key, forbidden), key, ActionApply, "dry run of applying apps/Deployment ns/web: " + forbidden.Error(), true},
		{"transient", StepError(ActionPurge, key, errors.New("connection refused")), key, ActionPurge, "purging apps/Deployment ns/web: connection refused", false},
		{"prune", StepError(ActionPrune, key, errors.New("timeout")), key, ActionPrune, "deleting apps/Deployment ns/web: timeout", false},
		{"delete", StepError(ActionDelete, key, forbidden), key, ActionDelete, "deleting apps/Deployment ns/web: " + forbidden.Error(), true},
		{"orphan", StepError(ActionOrphan, key, errors.New("timeout")), key, ActionOrphan, "orphaning apps/Deployment ns/web: timeout", false},
		{"failed object", StepError(ActionReady, job, backoff), job, ActionReady,
			"batch/Job ns/migrate failed: Failed: BackoffLimitExceeded: Job has reached the specified backoff limit", false},
		{"hook not applied", StepError(ActionRunHook, job, invalid), job, ActionRunHook, "running delete hook batch/Job ns/migrate: " + invalid.Error(), true},
		{"hook failed", WordedError(ActionRunHook, WordingHookFailed, job, backoff), job, ActionRunHook,
			"delete hook batch/Job ns/migrate failed: Failed: BackoffLimitExceeded: Job has reached the specified backoff limit", false},
		{"hook not deleted", WordedError(ActionRunHook, WordingHookDelete, job, errors.New("timeout")), job, ActionRunHook, "deleting delete hook batch/Job ns/migrate: timeout", false},
		{"wrapped again", fmt.Errorf("pass: %w", StepError(ActionApply, key, forbidden)), key, ActionApply, "pass: applying apps/Deployment ns/web: " + forbidden.Error(), true},
		{"joined", errors.Join(errors.New("other"), StepError(ActionReady, job, backoff)), job, ActionReady,
			"other\nbatch/Job ns/migrate failed: Failed: BackoffLimitExceeded: Job has reached the specified backoff limit", false},
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
			if !errors.As(tt.err, &oe) || oe.Object != tt.object || oe.Action != tt.action {
				t.Errorf("errors.As(ObjectError) = %+v, want object %v, action %q", oe, tt.object, tt.action)
			}
		})
	}
	if StepError(ActionApply, key, nil) != nil {
		t.Error("objectError of nil is not nil")
	}
}
