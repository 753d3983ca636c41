package v1alpha1_test

import "testing"

// TestDecryptionIsExplained keeps `kubectl explain component.spec.decryption`
// useful: the field and every field under it have a description.
func TestDecryptionIsExplained(t *testing.T) {
	expectExplained(t, "decryption", "spec.decryption", "spec.decryption.provider",
		"spec.decryption.secretRef", "spec.decryption.secretRef.name")
}
