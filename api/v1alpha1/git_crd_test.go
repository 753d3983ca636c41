package v1alpha1_test

import "testing"

// TestGitIsExplained keeps `kubectl explain component.spec.git` useful:
// every field of the Git source has a description.
func TestGitIsExplained(t *testing.T) {
	expectExplained(t, "git",
		"spec.git", "spec.git.ignore", "spec.git.interval", "spec.git.path", "spec.git.proxySecretRef",
		"spec.git.proxySecretRef.name", "spec.git.recurseSubmodules", "spec.git.ref", "spec.git.ref.branch",
		"spec.git.ref.commit", "spec.git.ref.name", "spec.git.ref.semver", "spec.git.ref.tag", "spec.git.secretRef",
		"spec.git.secretRef.name", "spec.git.sparseCheckout", "spec.git.timeout", "spec.git.url", "spec.git.verify",
		"spec.git.verify.mode", "spec.git.verify.secretRef", "spec.git.verify.secretRef.name",
	)
}
