package component

import "k8s.io/apimachinery/pkg/types"

// forget drops what the reconciler keeps of a component that is gone or
// no longer its own (another shard's, filtered out): its written status,
// Event notes, hooks, kept renders, span links, external dependents,
// metrics and its use of a target.
func (r *core) forget(id types.NamespacedName) {
	r.status.Forget(id)
	r.notes.Forget(id)
	if r.held != nil {
		r.held.Forget(id)
	}
	r.hooks.Forget(id)
	r.traces.Forget(id)
	r.forgetExternals(id)
	if r.renders != nil {
		r.renders.Forget(id)
		r.current.Forget(id)
	}
	r.gauge.observe(id.String(), nil)
	objectWrites.DeleteLabelValues(r.name, id.Namespace, id.Name)
	if r.targets != nil {
		r.targets.Release(id)
	}
}

// forgetExternals stops polling the dependents of a component that is
// gone.
func (r *core) forgetExternals(id types.NamespacedName) {
	if r.externals != nil {
		r.externals.Forget(id)
	}
}
