package finalizer

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// OrphansOnDelete tells whether c's own annotation <operator>/delete-policy
// asks to leave its objects as they are when it is deleted: the way out for
// a component whose target cluster is gone (or whose identity may no longer
// delete there), since deletion otherwise waits for that cluster. An
// invalid value is a manifests.UserError.
func OrphansOnDelete(c client.Object, operator string) (bool, error) {
	key := manifests.Key(operator, manifests.AnnotationDeletePolicy)
	value, ok := c.GetAnnotations()[key]
	if !ok {
		return false, nil
	}
	switch manifests.DeletePolicy(value) {
	case manifests.DeleteOrphan, manifests.DeleteOrphanOnDelete:
		return true, nil
	case manifests.DeleteDefault, manifests.DeleteDelete:
		return false, nil
	}
	return false, &manifests.UserError{Err: fmt.Errorf("%s: annotation %s has invalid value %q (allowed: %s, %s, %s, %s)",
		client.ObjectKeyFromObject(c), key, value, manifests.DeleteOrphan, manifests.DeleteOrphanOnDelete, manifests.DeleteDefault, manifests.DeleteDelete)}
}
