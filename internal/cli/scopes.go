package cli

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// scopes decides whether rendered objects are namespaced, as the applier
// does: from the cluster's REST mapping.
type scopes struct {
	mapper meta.RESTMapper
}

// place sets the namespace of a namespaced object that has none and clears
// it on a cluster-scoped one. It reports false for a kind the cluster does
// not serve (yet: its CRD may be among the objects); the object keeps its
// namespace then.
func (s *scopes) place(u *unstructured.Unstructured, namespace string) (bool, error) {
	gvk := u.GroupVersionKind()
	mapping, err := s.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		if u.GetNamespace() == "" {
			u.SetNamespace(namespace)
		}
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("finding the scope of %s: %w", gvk, err)
	}
	if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		u.SetNamespace("")
	} else if u.GetNamespace() == "" {
		u.SetNamespace(namespace)
	}
	return true, nil
}
