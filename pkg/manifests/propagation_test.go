package manifests_test

import (
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestParsePoliciesReadsDeletePropagation: without the annotation an object
// is deleted in background, as before the annotation existed; background
// and foreground are taken as written; any other value is an error that
// names the object, the key, the value and the allowed values.
func TestParsePoliciesReadsDeletePropagation(t *testing.T) {
	const prefix, object = "wavekit.dev", "Deployment ns/web"
	key := manifests.Key(prefix, manifests.AnnotationDeletePropagation)
	for _, c := range []struct {
		annotations map[string]string
		want        manifests.DeletePropagation
	}{
		{nil, manifests.PropagationBackground},
		{map[string]string{key: "background"}, manifests.PropagationBackground},
		{map[string]string{key: "foreground"}, manifests.PropagationForeground},
	} {
		policies, err := manifests.ParsePolicies(prefix, object, c.annotations, manifests.Defaults{})
		if err != nil {
			t.Fatalf("%v: %v", c.annotations, err)
		}
		if policies.DeletePropagation != c.want {
			t.Errorf("%v: delete propagation %q, want %q", c.annotations, policies.DeletePropagation, c.want)
		}
	}
	for value, want := range map[string]string{
		"Foreground": `Deployment ns/web: annotation wavekit.dev/delete-propagation has invalid value "Foreground" (allowed: background, foreground)`,
		"orphan":     `Deployment ns/web: annotation wavekit.dev/delete-propagation has invalid value "orphan" (allowed: background, foreground)`,
		"":           `Deployment ns/web: annotation wavekit.dev/delete-propagation has invalid value "" (allowed: background, foreground)`,
	} {
		_, err := manifests.ParsePolicies(prefix, object, map[string]string{key: value}, manifests.Defaults{})
		if err == nil || err.Error() != want {
			t.Errorf("%q: got error %v, want %s", value, err, want)
		}
	}
}

// TestParsePoliciesReadsReplacePropagation: the delete that re-creates an
// object follows delete-propagation unless replace-propagation says
// otherwise, and only replace-propagation may orphan the dependents.
func TestParsePoliciesReadsReplacePropagation(t *testing.T) {
	const prefix, object = "wavekit.dev", "StatefulSet ns/db"
	deleteKey := manifests.Key(prefix, manifests.AnnotationDeletePropagation)
	replaceKey := manifests.Key(prefix, manifests.AnnotationReplacePropagation)
	for _, c := range []struct {
		annotations map[string]string
		want        manifests.DeletePropagation
	}{
		{nil, manifests.PropagationBackground},
		{map[string]string{deleteKey: "foreground"}, manifests.PropagationForeground},
		{map[string]string{deleteKey: "foreground", replaceKey: "orphan"}, manifests.PropagationOrphan},
		{map[string]string{replaceKey: "background"}, manifests.PropagationBackground},
	} {
		policies, err := manifests.ParsePolicies(prefix, object, c.annotations, manifests.Defaults{})
		if err != nil {
			t.Fatalf("%v: %v", c.annotations, err)
		}
		if policies.ReplacePropagation != c.want {
			t.Errorf("%v: replace propagation %q, want %q", c.annotations, policies.ReplacePropagation, c.want)
		}
	}
	_, err := manifests.ParsePolicies(prefix, object, map[string]string{replaceKey: "Orphan"}, manifests.Defaults{})
	want := `StatefulSet ns/db: annotation wavekit.dev/replace-propagation has invalid value "Orphan" (allowed: background, foreground, orphan)`
	if err == nil || err.Error() != want {
		t.Errorf("got error %v, want %s", err, want)
	}
}
