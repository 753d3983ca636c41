package manifests

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ObjectKey identifies an object independently of its API version.
type ObjectKey struct {
	Group     string
	Kind      string
	Namespace string
	Name      string
}

// String renders the key as "group/Kind namespace/name" (core: "Kind namespace/name").
func (k ObjectKey) String() string {
	kind := k.Kind
	if k.Group != "" {
		kind = k.Group + "/" + k.Kind
	}
	if k.Namespace == "" {
		return kind + " " + k.Name
	}
	return kind + " " + k.Namespace + "/" + k.Name
}

// GroupKind returns the key's group and kind.
func (k ObjectKey) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: k.Group, Kind: k.Kind}
}

// Key returns the key of an inventory item.
func (i *InventoryItem) Key() ObjectKey {
	return ObjectKey{Group: i.Group, Kind: i.Kind, Namespace: i.Namespace, Name: i.Name}
}

// GroupVersionKind returns the item's group, version and kind.
func (i *InventoryItem) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: i.Group, Version: i.Version, Kind: i.Kind}
}

// String names the item as ObjectKey does.
func (i *InventoryItem) String() string { return i.Key().String() }
