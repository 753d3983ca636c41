package manifests_test

import (
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestParsePoliciesRefusesUnknownKeys: a key under the prefix that wavekit
// does not know is an error that suggests the nearest known key, so a typo
// is never ignored; keys of other prefixes are left alone.
func TestParsePoliciesRefusesUnknownKeys(t *testing.T) {
	const prefix, object = "wavekit.dev", "ConfigMap ns/cm"
	for key, want := range map[string]string{
		"wavekit.dev/apply-ordr":    "ConfigMap ns/cm: unknown annotation wavekit.dev/apply-ordr (did you mean wavekit.dev/apply-order?)",
		"wavekit.dev/applyorder":    "ConfigMap ns/cm: unknown annotation wavekit.dev/applyorder (did you mean wavekit.dev/apply-order?)",
		"wavekit.dev/Delete-Policy": "ConfigMap ns/cm: unknown annotation wavekit.dev/Delete-Policy (did you mean wavekit.dev/delete-policy?)",
		"wavekit.dev/purge":         "ConfigMap ns/cm: unknown annotation wavekit.dev/purge (did you mean wavekit.dev/purge-order?)",
		"wavekit.dev/colour": "ConfigMap ns/cm: unknown annotation wavekit.dev/colour (the keys under wavekit.dev/ are " +
			"apply-order, order, purge-order, delete-order, reconcile-policy, update-policy, delete-policy, delete-propagation, adoption-policy, " +
			"status-hint, reapply-interval, delete-hook, test-hook, ignore-fields, replace-propagation, crd-policy, owner, owner-id, digest)",
	} {
		_, err := manifests.ParsePolicies(prefix, object, map[string]string{key: "1", "wavekit.dev/order": "1"}, manifests.Defaults{})
		if err == nil || err.Error() != want {
			t.Errorf("%s: got error %v, want %s", key, err, want)
		}
	}
	for _, key := range append([]string{"other.wavekit.dev/apply-ordr", "wavekit.dev.example/x", "app.kubernetes.io/name"}, knownKeys(prefix)...) {
		if _, err := manifests.ParsePolicies(prefix, object, map[string]string{key: "1"}, manifests.Defaults{}); err != nil {
			if _, unknown := err.(*manifests.UnknownKeyError); unknown {
				t.Errorf("%s: refused as unknown: %v", key, err)
			}
		}
	}
}

func knownKeys(prefix string) []string {
	var keys []string
	for _, suffix := range manifests.KnownKeys {
		keys = append(keys, manifests.Key(prefix, suffix))
	}
	return keys
}
