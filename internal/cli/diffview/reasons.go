package diffview

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// maxReasonFields is how many changed fields an update's reason names.
const maxReasonFields = 3

// stepReason words why a preview step does what it does: the plan's reason,
// after the Helm hook the object is (a helm.sh/hook annotation) and, for
// an update, the fields that change ("data.version: 1 → 2"). Secret values
// are masked as in the diffs unless showSecrets.
func stepReason(s engine.PreviewStep, showSecrets bool) string {
	var parts []string
	if s.Rendered != nil {
		if hook := s.Rendered.GetAnnotations()["helm.sh/hook"]; hook != "" {
			parts = append(parts, "hook "+hook)
		}
	}
	if s.Action == engine.ActionUpdate && s.Change != nil {
		before, after := s.Change.Live, s.Change.Result
		if !showSecrets {
			before, after = maskSecrets(before, after)
		}
		if fields := changedFields(before, after); fields != "" {
			parts = append(parts, fields)
		}
	}
	if s.Reason != "" {
		parts = append(parts, s.Reason)
	}
	return strings.Join(parts, "; ")
}

// changedFields names the leaf fields that differ between two objects,
// server-managed metadata aside: "spec.replicas: 2 → 3, data.a: x → y".
func changedFields(before, after *unstructured.Unstructured) string {
	if before == nil || after == nil {
		return ""
	}
	var changes []string
	diffFields("", withoutServerFields(before), withoutServerFields(after), &changes)
	sort.Strings(changes)
	if len(changes) > maxReasonFields {
		changes = append(changes[:maxReasonFields], fmt.Sprintf("and %d more", len(changes)-maxReasonFields))
	}
	return strings.Join(changes, ", ")
}

func withoutServerFields(u *unstructured.Unstructured) map[string]any {
	u = u.DeepCopy()
	for _, field := range serverFields {
		unstructured.RemoveNestedField(u.Object, "metadata", field)
	}
	unstructured.RemoveNestedField(u.Object, "status")
	return u.Object
}

// diffFields appends "path: before → after" for each leaf that differs;
// lists are compared whole.
func diffFields(path string, before, after any, out *[]string) {
	b, bIsMap := before.(map[string]any)
	a, aIsMap := after.(map[string]any)
	if bIsMap && aIsMap {
		keys := map[string]bool{}
		for k := range b {
			keys[k] = true
		}
		for k := range a {
			keys[k] = true
		}
		for k := range keys {
			diffFields(strings.TrimPrefix(path+"."+k, "."), b[k], a[k], out)
		}
		return
	}
	if reflect.DeepEqual(before, after) {
		return
	}
	*out = append(*out, fmt.Sprintf("%s: %s → %s", path, shortValue(before), shortValue(after)))
}

// shortValue words a field's value for a reason: scalars as they are,
// absent as "(none)", lists and maps by their size.
func shortValue(v any) string {
	switch t := v.(type) {
	case nil:
		return "(none)"
	case []any:
		return fmt.Sprintf("[%d items]", len(t))
	case map[string]any:
		return fmt.Sprintf("{%d fields}", len(t))
	case string:
		if len(t) > 40 {
			return fmt.Sprintf("%q…", t[:37])
		}
		return t
	}
	return fmt.Sprint(v)
}
