package managedfields

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// entryHead is what deciding a takeover reads of a managedFields entry:
// who wrote it, how, and whether it holds fields, but not the fields.
type entryHead struct {
	manager, operation, subresource string
	hasFields                       bool
}

// takenOverBy tells whether a server-side apply of owner takes the entry
// over: an Update of the object itself (not a subresource such as status
// or scale) by owner or one of managers.
func (e entryHead) takenOverBy(owner string, managers []string) bool {
	if e.operation != string(metav1.ManagedFieldsOperationUpdate) || e.subresource != "" || !e.hasFields {
		return false
	}
	return e.manager == owner || slices.Contains(managers, e.manager)
}

func headOf(e metav1.ManagedFieldsEntry) entryHead {
	return entryHead{manager: e.Manager, operation: string(e.Operation), subresource: e.Subresource, hasFields: e.FieldsV1 != nil}
}

// entryHeads returns the heads of obj's managedFields entries. Of an
// Unstructured object it reads them from the object's maps: its
// GetManagedFields converts every entry's field set through JSON, which
// cost the cache's transform a tenth of a CLI install's CPU, on every
// object it receives.
func entryHeads(obj metav1.Object) []entryHead {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		entries := obj.GetManagedFields()
		heads := make([]entryHead, len(entries))
		for i, e := range entries {
			heads[i] = headOf(e)
		}
		return heads
	}
	raw, _, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "managedFields")
	list, _ := raw.([]any)
	heads := make([]entryHead, 0, len(list))
	for _, item := range list {
		entry, _ := item.(map[string]any)
		fields, hasFields := entry["fieldsV1"]
		heads = append(heads, entryHead{
			manager: stringAt(entry, "manager"), operation: stringAt(entry, "operation"),
			subresource: stringAt(entry, "subresource"), hasFields: hasFields && fields != nil,
		})
	}
	return heads
}

func stringAt(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
