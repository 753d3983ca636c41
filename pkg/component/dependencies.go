package component

import (
	"strings"

	"k8s.io/apimachinery/pkg/types"
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

func first[E any](s []E, n int) []E { return s[:min(n, len(s))] }

func joinIDs(ids []types.NamespacedName, sep string) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = id.String()
	}
	return strings.Join(names, sep)
}
