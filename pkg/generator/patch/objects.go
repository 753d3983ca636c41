package patch

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
)

// objectSet holds the objects being patched as kustomize resources, in the
// order of the input, and what each was before the first patch.
type objectSet struct {
	factory   *resmap.Factory
	resources resmap.ResMap
	inputs    map[*resource.Resource]input
}

// input is an object as Apply got it, and the canonical JSON of its resource
// before any patch, to tell whether the patches changed it.
type input struct {
	object    *unstructured.Unstructured
	canonical []byte
}

// newObjectSet converts objects to kustomize resources.
func newObjectSet(objects []client.Object) (*objectSet, error) {
	factory := resmap.NewFactory(provider.NewDefaultDepProvider().GetResourceFactory())
	s := &objectSet{factory: factory, resources: resmap.New(), inputs: make(map[*resource.Resource]input, len(objects))}
	for i, obj := range objects {
		if err := s.add(obj); err != nil {
			return nil, fmt.Errorf("object %d (%s): %w", i+1, describeObject(obj), err)
		}
	}
	return s, nil
}

// add appends obj to s.
func (s *objectSet) add(obj client.Object) error {
	u, err := toUnstructured(obj)
	if err != nil {
		return err
	}
	res, err := s.factory.RF().FromMap(u.Object)
	if err != nil {
		return err
	}
	if err := s.resources.Append(res); err != nil {
		return err
	}
	converted, err := fromResource(res)
	if err != nil {
		return err
	}
	canonical, err := json.Marshal(converted.Object)
	if err != nil {
		return err
	}
	s.inputs[res] = input{object: u, canonical: canonical}
	return nil
}

// describeObject describes an object of the input as "Deployment prod/web".
func describeObject(obj client.Object) string {
	name := obj.GetName()
	if obj.GetNamespace() != "" {
		name = obj.GetNamespace() + "/" + name
	}
	return obj.GetObjectKind().GroupVersionKind().Kind + " " + name
}

// toUnstructured returns obj itself if it is unstructured, or else a
// converted copy with its apiVersion and kind.
func toUnstructured(obj client.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	gvk, err := apiutil.GVKForObject(obj, scheme.Scheme)
	if err != nil {
		return nil, err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting to unstructured: %w", err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// fromResource converts a kustomize resource to an unstructured object.
func fromResource(res *resource.Resource) (*unstructured.Unstructured, error) {
	data, err := res.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", describeID(res.CurId()), err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", describeID(res.CurId()), err)
	}
	return u, nil
}

// objects returns the patched objects: a copy of the input for those that
// no patch changed, without kustomize's annotations for the others.
func (s *objectSet) objects() ([]client.Object, error) {
	objects := make([]client.Object, 0, s.resources.Size())
	for _, res := range s.resources.Resources() {
		in := s.inputs[res]
		u, err := fromResource(res)
		if err != nil {
			return nil, err
		}
		dropKustomizeAnnotations(u, in.object)
		canonical, err := json.Marshal(u.Object)
		if err != nil {
			return nil, fmt.Errorf("encoding %s: %w", describeID(res.CurId()), err)
		}
		if string(canonical) == string(in.canonical) {
			u = in.object.DeepCopy()
		}
		objects = append(objects, u)
	}
	return objects, nil
}

// dropKustomizeAnnotations removes the annotations that kustomize adds for
// its own use, except those that the input object had, and an annotations
// map that is left empty where the input had none.
func dropKustomizeAnnotations(u, in *unstructured.Unstructured) {
	annotations := u.GetAnnotations()
	had := in.GetAnnotations()
	changed := false
	for key := range annotations {
		if _, ok := had[key]; !ok && isKustomizeAnnotation(key) {
			delete(annotations, key)
			changed = true
		}
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(in.Object, "metadata", "annotations"); len(annotations) == 0 && !found {
		unstructured.RemoveNestedField(u.Object, "metadata", "annotations")
		return
	}
	if changed {
		u.SetAnnotations(annotations)
	}
}

// isKustomizeAnnotation says whether kustomize may add the annotation key
// while it builds.
func isKustomizeAnnotation(key string) bool {
	return slices.Contains(resource.BuildAnnotations, key) ||
		strings.HasPrefix(key, "internal.config.kubernetes.io/") ||
		key == "config.kubernetes.io/origin" ||
		key == "alpha.config.kubernetes.io/transformations"
}
