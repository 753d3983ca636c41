package component

import (
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
)

// maxDependencyWalk bounds how many components a cycle check reads.
const maxDependencyWalk = 256

// dependencies returns what c depends on, namespaces filled in.
func dependencies(c Component) []types.NamespacedName {
	dc, ok := api.Optional[DependencyConfiguration](c)
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
