package component

import (
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// maxDependencyWalk bounds how many components a cycle check reads.
const maxDependencyWalk = 256

func first[E any](s []E, n int) []E { return s[:min(n, len(s))] }

func joinIDs(ids []types.NamespacedName, sep string) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = id.String()
	}
	return strings.Join(names, sep)
}
