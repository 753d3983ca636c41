package manifests_test

import (
	"fmt"
	"slices"
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

// TestDecodeObjectsKeepsOrder: a stream long enough to be decoded in
// parallel comes back in document order, empty documents and lists
// included, and an error names the first bad document.
func TestDecodeObjectsKeepsOrder(t *testing.T) {
	var stream strings.Builder
	var want []string
	for i := range 300 {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&stream, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\n", i)
			want = append(want, fmt.Sprintf("cm-%d", i))
		case 1:
			stream.WriteString("---\n# only a comment\n")
		case 2:
			fmt.Fprintf(&stream, "---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a-%d\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: b-%d\n", i, i)
			want = append(want, fmt.Sprintf("a-%d", i), fmt.Sprintf("b-%d", i))
		}
	}
	objects, err := manifests.DecodeObjects("x.yaml", []byte(stream.String()))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, obj := range objects {
		got = append(got, obj.GetName())
	}
	if !slices.Equal(got, want) {
		t.Errorf("decoded %d objects out of order: %v", len(got), got)
	}

	bad := stream.String() + "---\n- not an object\n---\nnot: [valid\n"
	_, err = manifests.DecodeObjects("x.yaml", []byte(bad))
	if err == nil || !strings.HasPrefix(err.Error(), "x.yaml: document 301: expected an object") {
		t.Errorf("got error %v, want one about document 301", err)
	}
}
