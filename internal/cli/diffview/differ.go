package diffview

import (
	"fmt"

	"github.com/pmezard/go-difflib/difflib"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// symbol marks an action in diff output: + create; - delete, prune, purge
// or orphan; ~ update or replace.
func symbol(a engine.Action) string {
	switch a {
	case engine.ActionCreate:
		return "+"
	case engine.ActionDelete, engine.ActionPrune, engine.ActionPurge, engine.ActionOrphan:
		return "-"
	}
	return "~"
}

// objectDiff is the diff of one object.
type objectDiff struct {
	key    manifests.ObjectKey
	action engine.Action
	note   string
	text   string // unified diff
}

// objectDiffs turns what the applier says apply would do into diffs.
// Secret values are masked unless showSecrets.
func objectDiffs(changes []engine.Change, showSecrets bool) ([]objectDiff, error) {
	diffs := make([]objectDiff, 0, len(changes))
	for _, c := range changes {
		var od objectDiff
		var err error
		switch c.Action {
		case engine.ActionUnchanged:
			od = objectDiff{key: c.Object, action: engine.ActionUnchanged}
		case engine.ActionOrphan:
			od = objectDiff{key: c.Object, action: engine.ActionOrphan, note: c.Note}
		case engine.ActionDelete:
			od, err = newObjectDiff(c.Object, engine.ActionDelete, c.Live, nil, c.Note, showSecrets)
		case engine.ActionCreate:
			od, err = newObjectDiff(c.Object, engine.ActionCreate, nil, c.Result, c.Note, showSecrets)
		default:
			od, err = newObjectDiff(c.Object, engine.ActionUpdate, c.Live, c.Result, c.Note, showSecrets)
		}
		if err != nil {
			return nil, err
		}
		diffs = append(diffs, od)
	}
	return diffs, nil
}

// newObjectDiff compares before and after (nil: absent); equal objects are
// unchanged. Secret values are masked unless showSecrets.
func newObjectDiff(key manifests.ObjectKey, act engine.Action, before, after *unstructured.Unstructured, note string, showSecrets bool) (objectDiff, error) {
	if !showSecrets {
		before, after = maskSecrets(before, after)
	}
	a, err := comparable(before)
	if err != nil {
		return objectDiff{}, fmt.Errorf("%s: %w", key, err)
	}
	b, err := comparable(after)
	if err != nil {
		return objectDiff{}, fmt.Errorf("%s: %w", key, err)
	}
	if a == b {
		return objectDiff{key: key, action: engine.ActionUnchanged}, nil
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(a), B: difflib.SplitLines(b),
		FromFile: "live", ToFile: "rendered", Context: 3,
	})
	if err != nil {
		return objectDiff{}, fmt.Errorf("diffing %s: %w", key, err)
	}
	return objectDiff{key: key, action: act, note: note, text: text}, nil
}

// serverFields are set by the API server on every write; diffs leave them out.
var serverFields = []string{"managedFields", "resourceVersion", "uid", "generation", "creationTimestamp"}

// comparable renders u as YAML without server-managed fields ("" for nil).
func comparable(u *unstructured.Unstructured) (string, error) {
	if u == nil {
		return "", nil
	}
	u = u.DeepCopy()
	for _, field := range serverFields {
		unstructured.RemoveNestedField(u.Object, "metadata", field)
	}
	data, err := yaml.Marshal(u.Object)
	if err != nil {
		return "", fmt.Errorf("encoding as YAML: %w", err)
	}
	return string(data), nil
}
