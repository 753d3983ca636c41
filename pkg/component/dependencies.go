package component

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// DependencyConfiguration names the components, of the same type, that must
// be Ready at their current generation before this one is applied; none of
// them is deleted while this one exists. A name without a namespace is in
// the component's own namespace.
type DependencyConfiguration interface {
	GetDependencies() []types.NamespacedName
}

// maxDependencyWalk bounds how many components a cycle check reads.
const maxDependencyWalk = 256

// dependencies returns what c depends on, namespaces filled in.
func dependencies(c Component) []types.NamespacedName {
	dc, ok := optional[DependencyConfiguration](c)
	if !ok {
		return nil
	}
	deps := dc.GetDependencies()
	out := make([]types.NamespacedName, 0, len(deps))
	for _, d := range deps {
		if d.Namespace == "" {
			d.Namespace = c.GetNamespace()
		}
		out = append(out, d)
	}
	return out
}

// awaitDependencies returns a Pending outcome while a dependency is not
// Ready at its current generation, an error outcome for a dependency cycle
// or a refused reference, and false when the component may be applied.
func (p *pass[T]) awaitDependencies(ctx context.Context) (outcome, bool) {
	deps := p.settings.dependencies
	if len(deps) == 0 {
		return outcome{}, false
	}
	if err := p.checkDependencyRefs(deps); err != nil {
		return p.fail(err), true
	}
	if cycle := p.r.deps.path(ctx, p.id, p.id); cycle != nil {
		message := "dependency cycle: " + joinIDs(cycle, " → ") + ": remove one of these dependencies"
		return outcome{reason: ReasonError, message: message, requeue: p.settings.retry, stalled: true}, true
	}
	for _, dep := range deps {
		if why := p.r.deps.notReady(ctx, dep); why != "" {
			// Its status changes arrive as events; the requeue is a backstop.
			message := fmt.Sprintf("waiting for dependency %s: %s", dep, why)
			return outcome{reason: ReasonPending, message: message, requeue: p.settings.retry}, true
		}
	}
	return outcome{}, false
}

// checkDependencyRefs refuses dependencies in other namespaces when the
// reconciler refuses cross-namespace references.
func (p *pass[T]) checkDependencyRefs(deps []types.NamespacedName) error {
	if !p.r.opts.NoCrossNamespaceRefs {
		return nil
	}
	for _, d := range deps {
		if d.Namespace != p.id.Namespace {
			return &manifests.UserError{Err: fmt.Errorf("dependency %s is not in the component's namespace %s: cross-namespace references are refused (NoCrossNamespaceRefs, --no-cross-namespace-refs)", d, p.id.Namespace)}
		}
	}
	return nil
}

// dependents returns the components that depend on the component being
// run, except those in a dependency cycle with it (deleting them waits for
// neither, so that a cycle cannot block deletion for ever).
func (p *pass[T]) dependents(ctx context.Context) ([]types.NamespacedName, error) {
	all, err := p.r.deps.dependentsOf(ctx, p.id)
	if err != nil {
		return nil, err
	}
	var out []types.NamespacedName
	for _, d := range all {
		if d != p.id && p.r.deps.path(ctx, p.id, d) == nil {
			out = append(out, d)
		}
	}
	return out, nil
}

// awaitDependents returns a DeletionPending outcome while components that
// depend on this one exist, and false when it may be deleted.
func (p *pass[T]) awaitDependents(ctx context.Context) (outcome, bool) {
	dependents, err := p.dependents(ctx)
	if err != nil {
		return p.fail(err), true
	}
	if len(dependents) == 0 {
		return outcome{}, false
	}
	names, verb := joinIDs(first(dependents, 5), ", "), "depends"
	if len(dependents) > 1 {
		verb = "depend"
	}
	if len(dependents) > 5 {
		names += fmt.Sprintf(" and %d more", len(dependents)-5)
	}
	message := fmt.Sprintf("deletion waits for %s, which %s on it", names, verb)
	// Their deletion arrives as an event; the requeue is a backstop.
	return outcome{reason: ReasonDeletionBlocked, message: message, requeue: p.settings.retry}, true
}

func first[E any](s []E, n int) []E { return s[:min(n, len(s))] }

func joinIDs(ids []types.NamespacedName, sep string) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = id.String()
	}
	return strings.Join(names, sep)
}
