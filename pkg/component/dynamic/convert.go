package dynamic

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// List is a list of components of type T, the list kind of a served kind.
type List[T component.Component] struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []T `json:"items"`
}

// DeepCopyObject copies the list and its items.
func (l *List[T]) DeepCopyObject() runtime.Object {
	out := &List[T]{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	for _, item := range l.Items {
		out.Items = append(out.Items, item.DeepCopyObject().(T))
	}
	return out
}

// kind converts between T and unstructured objects of one kind.
type kind[T component.Component] struct {
	gvk schema.GroupVersionKind
}

func (k kind[T]) empty() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.gvk)
	return u
}

func (k kind[T]) emptyList() *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(k.gvk.GroupVersion().WithKind(k.gvk.Kind + "List"))
	return l
}

// toUnstructured is t as an unstructured object of the kind.
func (k kind[T]) toUnstructured(t T) (*unstructured.Unstructured, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encoding %s %s/%s: %w", k.gvk.Kind, t.GetNamespace(), t.GetName(), err)
	}
	u := k.empty()
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("encoding %s %s/%s: %w", k.gvk.Kind, t.GetNamespace(), t.GetName(), err)
	}
	u.SetGroupVersionKind(k.gvk)
	return u, nil
}

// into sets t to u: every field JSON carries, those u lacks zeroed, as a
// read or a write's answer sets a typed object (copyInto).
func (k kind[T]) into(u *unstructured.Unstructured, t T) error {
	raw, err := u.MarshalJSON()
	if err != nil {
		return fmt.Errorf("decoding %s %s/%s: %w", k.gvk.Kind, u.GetNamespace(), u.GetName(), err)
	}
	fresh := newObject[T]()
	if err := json.Unmarshal(raw, fresh); err != nil {
		return fmt.Errorf("decoding %s %s/%s: %w", k.gvk.Kind, u.GetNamespace(), u.GetName(), err)
	}
	fresh.GetObjectKind().SetGroupVersionKind(k.gvk)
	copyInto(fresh, t)
	return nil
}

// intoList sets list to the items of u.
func (k kind[T]) intoList(u *unstructured.UnstructuredList, list *List[T]) error {
	list.TypeMeta = metav1.TypeMeta{APIVersion: k.gvk.GroupVersion().String(), Kind: k.gvk.Kind + "List"}
	list.ResourceVersion, list.Continue, list.RemainingItemCount = u.GetResourceVersion(), u.GetContinue(), u.GetRemainingItemCount()
	list.Items = make([]T, 0, len(u.Items))
	for i := range u.Items {
		t := newObject[T]()
		if err := k.into(&u.Items[i], t); err != nil {
			return err
		}
		list.Items = append(list.Items, t)
	}
	return nil
}
