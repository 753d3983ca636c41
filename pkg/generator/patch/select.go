package patch

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Selector picks objects as kustomize's patch target does. It is the same
// type as a drift ignore rule's target, so a Component's spec and this
// package share one spelling of it.
type Selector = manifests.ObjectSelector

// describe lists the fields of s that are set, as "kind=Deployment name=web".
func describe(s *Selector) string {
	var fields []string
	for _, field := range []struct{ key, value string }{
		{"group", s.Group}, {"version", s.Version}, {"kind", s.Kind},
		{"name", s.Name}, {"namespace", s.Namespace},
		{"labelSelector", s.LabelSelector}, {"annotationSelector", s.AnnotationSelector},
	} {
		if field.value != "" {
			fields = append(fields, field.key+"="+field.value)
		}
	}
	if len(fields) == 0 {
		return "any object"
	}
	return strings.Join(fields, " ")
}

// kustomizeSelector returns s as the selector of kustomize.
func kustomizeSelector(s *Selector) types.Selector {
	return types.Selector{
		ResId: resid.ResId{
			Gvk:       resid.Gvk{Group: s.Group, Version: s.Version, Kind: s.Kind},
			Name:      s.Name,
			Namespace: s.Namespace,
		},
		LabelSelector:      s.LabelSelector,
		AnnotationSelector: s.AnnotationSelector,
	}
}

// named returns the one object that a strategic merge patch without target
// names by id: same apiVersion, kind and name, and same namespace if id has
// one.
func (s *objectSet) named(id resid.ResId) (*resource.Resource, error) {
	matches := s.resources.GetMatchingResourcesByAnyId(func(other resid.ResId) bool {
		return other.Gvk.Equals(id.Gvk) && other.Name == id.Name &&
			(id.Namespace == "" || other.IsNsEquals(id))
	})
	switch len(matches) {
	case 0:
		return nil, ErrNoMatch
	case 1:
		return matches[0], nil
	}
	names := make([]string, len(matches))
	for i, match := range matches {
		names[i] = describeID(match.CurId())
	}
	return nil, fmt.Errorf("matches %d objects (%s); give the namespace of the one to patch",
		len(matches), strings.Join(names, ", "))
}

// describeID describes an object as "apps/v1 Deployment prod/web", or
// "apps/v1 Deployment web" without namespace.
func describeID(id resid.ResId) string {
	name := id.Name
	if id.Namespace != "" {
		name = id.Namespace + "/" + name
	}
	return id.Gvk.ApiVersion() + " " + id.Kind + " " + name
}
