package engine

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// CheckOptions say for whom CheckForApply checks objects and how it finds
// the scope of their kinds.
type CheckOptions struct {
	// Prefix is the operator name: the prefix of the annotations.
	Prefix string
	// Namespace is the component's (or release's) namespace: a namespaced
	// object without one is checked in it, as Apply writes it.
	Namespace string
	// Mapper finds the scope of each kind, as the target's mapper does for
	// Apply. Nil checks without an API server: OfflineRESTMapper knows the
	// built-in kinds, CRDs among the objects define theirs, and an object of
	// any other kind keeps its namespace as rendered instead of being refused.
	Mapper meta.RESTMapper
}

// CheckForApply validates objects with the very code Apply runs before its
// first write (names, duplicates, scopes, annotations and policies, orders
// that could never work) and returns them in the order Apply writes them: by
// apply-order wave, then by stage within the wave (namespaces, definitions,
// configuration, workloads, API services, instances of the types the
// objects' own CRDs and APIServices serve), then by group, kind, namespace
// and name. Tests, which only a test run creates, follow in the order a run
// creates them (Test); delete hooks, which only run when the component is
// deleted, come last. Both are validated as Test and Delete validate them (a
// kind not served yet is kept as rendered). The objects are returned as given, not
// normalised. An invalid object is a *manifests.UserError with the message
// Apply gives for it; nothing is returned then.
func CheckForApply(opts CheckOptions, objects []client.Object) ([]client.Object, error) {
	p := &plan.Preparer{Prefix: opts.Prefix, Namespace: opts.Namespace, Defaults: manifests.Defaults{}.WithFallbacks(), Mapper: opts.Mapper}
	if p.Mapper == nil {
		mapper, err := OfflineRESTMapper()
		if err != nil {
			return nil, err
		}
		p.Mapper, p.UnknownAsRendered = mapper, true
	}
	applied, err := inOrder(p, withoutHooks(objects, opts.Prefix), plan.SortForApply)
	if err != nil {
		return nil, &manifests.UserError{Err: fmt.Errorf("invalid manifests: %w", err)}
	}
	hooks := *p
	hooks.UnknownAsRendered = true
	tests, err := inOrder(&hooks, TestHooks(objects, opts.Prefix), sortForTests)
	if err != nil {
		return nil, &manifests.UserError{Err: fmt.Errorf("invalid tests: %w", err)}
	}
	deleteHooks, err := inOrder(&hooks, DeleteHooks(objects, opts.Prefix), plan.SortForApply)
	if err != nil {
		return nil, &manifests.UserError{Err: fmt.Errorf("invalid delete hooks: %w", err)}
	}
	return append(append(applied, tests...), deleteHooks...), nil
}

// inOrder prepares objects with p and returns them sorted by sortObjects.
func inOrder(p *plan.Preparer, objects []client.Object, sortObjects func([]*plan.Desired)) ([]client.Object, error) {
	prepared, err := p.Prepare(objects)
	if err != nil {
		return nil, err
	}
	given := make(map[*plan.Desired]client.Object, len(prepared))
	for i, d := range prepared {
		given[d] = objects[i] // prepare keeps the order of the objects it accepts
	}
	sortObjects(prepared)
	sorted := make([]client.Object, len(prepared))
	for i, d := range prepared {
		sorted[i] = given[d]
	}
	return sorted, nil
}

// OfflineRESTMapper returns a REST mapper that needs no API server: it knows
// the object kinds of client-go's scheme, CustomResourceDefinitions and
// APIServices, and whether each is namespaced. Any other kind is no match.
func OfflineRESTMapper() (meta.RESTMapper, error) { return kinds.OfflineRESTMapper() }
