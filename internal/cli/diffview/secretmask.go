package diffview

import (
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Masks that stand in for a Secret's values in diffs, as kubectl diff shows
// them: a key whose value stays is "***", a changed one is "*** (before)"
// on the live side and "*** (after)" on the rendered side.
const (
	maskSame   = "***"
	maskBefore = "*** (before)"
	maskAfter  = "*** (after)"
)

// lastApplied is kubectl's copy of what it last applied; on a Secret it holds
// the values too.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// maskSecrets returns copies of before and after (nil: absent) in which the
// values of a Secret's data and stringData, and kubectl's last-applied copy
// of them, are replaced by masks, so a diff shows which keys are added,
// changed or removed but never a value, plain or base64. Other kinds are
// returned as they are.
func maskSecrets(before, after *unstructured.Unstructured) (*unstructured.Unstructured, *unstructured.Unstructured) {
	if !isSecret(before) && !isSecret(after) {
		return before, after
	}
	before, after = deepCopyOrNil(before), deepCopyOrNil(after)
	for _, field := range []string{"data", "stringData"} {
		maskMalformed(before, field)
		maskMalformed(after, field)
		maskValues(stringMap(before, field), stringMap(after, field))
	}
	maskValues(stringMap(before, "metadata", "annotations"), stringMap(after, "metadata", "annotations"), lastApplied)
	return before, after
}

// maskValues masks the values of before and after in place; with keys, only
// those keys.
func maskValues(before, after map[string]any, keys ...string) {
	masked := func(key string) bool { return len(keys) == 0 || slices.Contains(keys, key) }
	for key, value := range before {
		if !masked(key) {
			continue
		}
		next, inAfter := after[key]
		switch {
		case !inAfter:
			before[key] = maskSame
		case reflect.DeepEqual(next, value):
			before[key], after[key] = maskSame, maskSame
		default:
			before[key], after[key] = maskBefore, maskAfter
		}
	}
	for key := range after {
		if _, inBefore := before[key]; masked(key) && !inBefore {
			after[key] = maskSame
		}
	}
}

// maskMalformed masks the whole field of u when it is there but not a map
// (a rendered object the API server has not checked yet).
func maskMalformed(u *unstructured.Unstructured, field string) {
	if u == nil {
		return
	}
	if value, found := u.Object[field]; found {
		if _, isMap := value.(map[string]any); !isMap {
			u.Object[field] = maskSame
		}
	}
}

// stringMap returns the map at fields of u, nil when u or the map is absent;
// the map is u's own, so writes to it change u.
func stringMap(u *unstructured.Unstructured, fields ...string) map[string]any {
	if u == nil {
		return nil
	}
	value, found, err := unstructured.NestedFieldNoCopy(u.Object, fields...)
	if !found || err != nil {
		return nil
	}
	m, _ := value.(map[string]any)
	return m
}

func isSecret(u *unstructured.Unstructured) bool {
	if u == nil {
		return false
	}
	gvk := u.GroupVersionKind()
	return gvk.Group == "" && gvk.Kind == "Secret"
}

func deepCopyOrNil(u *unstructured.Unstructured) *unstructured.Unstructured {
	if u == nil {
		return nil
	}
	return u.DeepCopy()
}
