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
