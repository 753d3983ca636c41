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

// TestDecodeObjectsNamesYAMLReadsAsScalars: a name that YAML reads as a
// boolean or a number (a release called y, no or 1e3, printed unquoted) is
// reported as such, not later as a missing name; quoted, it decodes.
func TestDecodeObjectsNamesYAMLReadsAsScalars(t *testing.T) {
	boolean := "YAML reads an unquoted y, n, yes, no, on, off, true or false as a boolean, not a string; quote it where the template prints it ({{ ... | quote }})"
	number := "YAML reads an unquoted name such as 123 or 1e3 as a number, not a string; quote it where the template prints it ({{ ... | quote }})"
	for doc, want := range map[string]string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n":                                        "x.yaml: document 1: v1 ConfigMap: metadata.name is the boolean true: " + boolean,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: no\n":                                       "x.yaml: document 1: v1 ConfigMap: metadata.name is the boolean false: " + boolean,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 1e3\n":                                      "x.yaml: document 1: v1 ConfigMap: metadata.name is the number 1000: " + number,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: 7\n":                        "x.yaml: document 1: v1 ConfigMap: metadata.namespace is the number 7: " + number,
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: on}\n": "x.yaml: document 1: v1 Secret: metadata.name is the boolean true: " + boolean,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"1e3\"\n":                                  "",
	} {
		objects, err := manifests.DecodeObjects("x.yaml", []byte(doc))
		switch {
		case want == "" && (err != nil || len(objects) != 1 || objects[0].GetName() != "1e3"):
			t.Errorf("decoding %q: got %v, %v; want the object named 1e3", doc, objects, err)
		case want != "" && (err == nil || err.Error() != want):
			t.Errorf("decoding %q: got error %v, want %s", doc, err, want)
		}
	}
}
