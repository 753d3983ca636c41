package component

import (
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// pass is the state of one Reconcile of one component (the package's doc
// tells the Reconcile step by step). Its files follow a
// Reconcile: reconcile.go reads the component and picks the pass; apply.go
// and delete.go run it (one engine pass: the render's, its tests' in
// tests.go, or a rollback's in attempt.go); failure.go turns an error into
// an outcome (outcome.go); finish.go records the outcome in the status,
// written at most once, and in an Event (events.go). writeahead.go is the
// one exception to writing at the end: new inventory items are written
// before their objects exist, and the Reconcile ends there.
type pass[T Component] struct {
	r         *Reconciler[T]
	settings  settings           // the component's optional configurations, resolved once
	status    *statusRecorder[T] // records the outcome; the one status write
	component T
	id        types.NamespacedName
	source    *manifests.SourceInfo // where the generator said the objects come from
	externals *external.Pass        // the pass's dependents outside Kubernetes, if any
	// rendered is what apply rendered, kept for the next Reconcile when
	// the pass writes ahead (aheadRenders).
	rendered []client.Object
}

// fail turns an error of the pass into its outcome (failure).
func (p *pass[T]) fail(err error) outcome {
	return failure(err, p.settings.retry, &p.status.written)
}
