package manifests_test

import (
	"strings"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestDecodeObjectsQuotesNoContent: a document that is no object says what
// is wrong and where, but never repeats what it holds (a Secret's value).
func TestDecodeObjectsQuotesNoContent(t *testing.T) {
	const value = "s3cret-value"
	for doc, want := range map[string]string{
		"apiVersion: v1\nmetadata:\n  name: creds\nstringData:\n  password: " + value + "\n": `x.yaml: document 1: not a Kubernetes object named "creds": no kind`,
		value + "\n":        "x.yaml: document 1: expected an object, found a string",
		"- " + value + "\n": "x.yaml: document 1: expected an object, found a list",
	} {
		_, err := manifests.DecodeObjects("x.yaml", []byte(doc))
		if err == nil || err.Error() != want || strings.Contains(err.Error(), value) {
			t.Errorf("decoding %q: got error %v, want %s", doc, err, want)
		}
	}
}
