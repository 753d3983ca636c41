package manifests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// DecodeObjects splits a multi-document YAML (or JSON) stream into objects.
// Empty documents and documents that hold only comments are skipped; a list
// (`kind: List` or any other kind ending in List, with items) is flattened
// into its items. Any other object keeps a top-level items field as it is. source names the input in errors (a file
// name, a template name). Documents are decoded in parallel, in order.
func DecodeObjects(source string, data []byte) ([]*unstructured.Unstructured, error) {
	docs, readErr := splitDocuments(data)
	decoded := make([][]*unstructured.Unstructured, len(docs))
	errs := make([]error, len(docs))
	inParallel(len(docs), func(i int) { decoded[i], errs[i] = decodeDocument(docs[i]) })
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", source, i+1, err)
		}
	}
	if readErr != nil {
		return nil, fmt.Errorf("%s: reading document %d: %w", source, len(docs)+1, readErr)
	}
	var objects []*unstructured.Unstructured
	for _, d := range decoded {
		objects = append(objects, d...)
	}
	return objects, nil
}

// splitDocuments returns the documents of a YAML stream up to the first
// one it cannot read, and the error of that one.
func splitDocuments(data []byte) ([][]byte, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, err
		}
		docs = append(docs, raw)
	}
}

// parallelFrom is how many documents make decoding them in parallel worth
// its goroutines.
const parallelFrom = 64

// inParallel calls fn for 0..n-1, on as many goroutines as Go may run at
// once when n is large enough.
func inParallel(n int, fn func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n/parallelFrom+1)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// decodeDocument converts one document through JSON, so that whole numbers
// become int64 as they do for objects read from the API server.
func decodeDocument(raw []byte) ([]*unstructured.Unstructured, error) {
	data, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) || bytes.Equal(data, []byte("{}")) {
		return nil, nil
	}
	if data[0] != '{' {
		return nil, fmt.Errorf("expected an object, found %s", jsonType(data))
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("not a Kubernetes object%s: %w", nameOf(data), withoutDocument(err))
	}
	objects, err := ListItems(obj)
	if err != nil {
		return nil, err
	}
	for _, o := range objects {
		if err := checkNameScalars(o); err != nil {
			return nil, err
		}
	}
	return objects, nil
}

// checkNameScalars refuses a metadata.name or metadata.namespace that YAML
// read as a boolean or a number: an unquoted y, no, on or 1e3 (a release
// called so, printed by {{ .Release.Name }}) is no string, and the object
// would otherwise be refused later as having no name at all.
func checkNameScalars(obj *unstructured.Unstructured) error {
	metadata, ok := obj.Object["metadata"].(map[string]any)
	if !ok {
		return nil
	}
	for _, field := range []string{"name", "namespace"} {
		var read string
		switch value := metadata[field].(type) {
		case bool:
			read = fmt.Sprintf("the boolean %t: YAML reads an unquoted y, n, yes, no, on, off, true or false as a boolean", value)
		case int64, float64:
			read = fmt.Sprintf("the number %v: YAML reads an unquoted name such as 123 or 1e3 as a number", value)
		default:
			continue
		}
		return fmt.Errorf("%s %s: metadata.%s is %s, not a string; quote it where the template prints it ({{ ... | quote }})",
			obj.GetAPIVersion(), obj.GetKind(), field, read)
	}
	return nil
}

// Errors for a document without kind or apiVersion.
var (
	errNoKind       = errors.New("no kind")
	errNoAPIVersion = errors.New("no apiVersion")
)

// withoutDocument replaces the errors of a missing kind or apiVersion, which
// quote the whole document (a Secret's values included), with ones that do
// not.
func withoutDocument(err error) error {
	switch {
	case kruntime.IsMissingKind(err):
		return errNoKind
	case kruntime.IsMissingVersion(err):
		return errNoAPIVersion
	}
	return err
}

// ListItems returns the items of a List (a kind ending in "List" with an
// items list), or obj itself: an object of another kind may have a
// top-level items field of its own.
func ListItems(obj *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	if !obj.IsList() || !strings.HasSuffix(obj.GetKind(), "List") {
		return []*unstructured.Unstructured{obj}, nil
	}
	list, err := obj.ToList()
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", obj.GetKind(), err)
	}
	items := make([]*unstructured.Unstructured, 0, len(list.Items))
	for i := range list.Items {
		items = append(items, &list.Items[i])
	}
	return items, nil
}

// nameOf returns ` named NAME` for a document with metadata.name, else "".
func nameOf(data []byte) string {
	var doc struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if json.Unmarshal(data, &doc) != nil || doc.Metadata.Name == "" {
		return ""
	}
	return " named " + strconv.Quote(doc.Metadata.Name)
}

// jsonType names the type of a JSON value that is not an object, without
// quoting it: it may be anything the template printed, a secret too.
func jsonType(data []byte) string {
	switch data[0] {
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}
