package kinds

import "github.com/wavekit-dev/wavekit/pkg/manifests"

// CompareKeys orders object keys by group, kind, namespace and name.
func CompareKeys(a, b manifests.ObjectKey) int {
	for _, pair := range [][2]string{{a.Group, b.Group}, {a.Kind, b.Kind}, {a.Namespace, b.Namespace}, {a.Name, b.Name}} {
		if pair[0] != pair[1] {
			if pair[0] < pair[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}
