package engine

import (
	"errors"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// SortForApply sorts objects in the order Apply writes them: by apply-order
// wave, then by stage within the wave (namespaces, definitions,
// configuration, workloads, API services, instances of the types the
// objects' own CRDs and APIServices serve), then by group, kind, namespace
// and name. prefix is the operator name of the annotations. It needs no
// cluster, so namespaces are compared as rendered. An invalid annotation is
// an error naming the object and key; objects are then left as they are.
func SortForApply(prefix string, objects []client.Object) error {
	entries := make([]*desired, len(objects))
	positions := make(map[*desired]int, len(objects))
	var served []manifests.TypeInfo
	var errs []error
	for i, obj := range objects {
		gvk := objectGVK(obj)
		d := &desired{key: manifests.ObjectKey{Group: gvk.Group, Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}}
		var err error
		d.policies, err = manifests.ParsePolicies(prefix, d.key.String(), obj.GetAnnotations(), manifests.Defaults{})
		errs = append(errs, err)
		d.stage = stageOf(gvk.Group, gvk.Kind)
		if isCRD(gvk.Group, gvk.Kind) || isAPIService(gvk.Group, gvk.Kind) {
			served = append(served, servedTypes(obj)...)
		}
		entries[i], positions[d] = d, i
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, d := range entries {
		if matchesAny(served, d.key.Group, d.key.Kind) {
			d.stage = stageManagedInstances
		}
	}
	sortForApply(entries)
	sorted := make([]client.Object, len(objects))
	for i, d := range entries {
		sorted[i] = objects[positions[d]]
	}
	copy(objects, sorted)
	return nil
}

// servedTypes returns the types a CRD or APIService serves, typed or not.
func servedTypes(obj client.Object) []manifests.TypeInfo {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil
		}
		u = &unstructured.Unstructured{Object: content}
		u.SetGroupVersionKind(objectGVK(obj))
	}
	return managedTypesOf(u)
}

// objectGVK returns the group, version and kind an object declares.
func objectGVK(obj runtime.Object) schema.GroupVersionKind {
	return obj.GetObjectKind().GroupVersionKind()
}
