package readiness

import (
	"context"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
)

// ObservedGenerations remembers, per custom resource kind, whether its CRD's
// schema declares status.observedGeneration: such a kind reports which
// generation its controller has seen, so an object of it that reports none
// yet has not been looked at and is not ready (kstatus alone would call an
// object without any status Current). Built-in kinds are never looked up;
// a CRD the identity may not read counts as not reporting.
type ObservedGenerations struct {
	mu    sync.Mutex
	known map[schema.GroupVersionKind]bool
}

// Reported tells whether gvk's CRD declares status.observedGeneration,
// reading the CRD once per kind with c, finding its name with mapper.
func (k *ObservedGenerations) Reported(ctx context.Context, mapper meta.RESTMapper, c client.Reader, gvk schema.GroupVersionKind) bool {
	if !isCustomGroup(gvk.Group) {
		return false
	}
	k.mu.Lock()
	reports, known := k.known[gvk]
	k.mu.Unlock()
	if known {
		return reports
	}
	reports = crdDeclaresObservedGeneration(ctx, mapper, c, gvk)
	k.mu.Lock()
	if k.known == nil {
		k.known = map[schema.GroupVersionKind]bool{}
	}
	k.known[gvk] = reports
	k.mu.Unlock()
	return reports
}

func crdDeclaresObservedGeneration(ctx context.Context, mapper meta.RESTMapper, c client.Reader, gvk schema.GroupVersionKind) bool {
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return false
	}
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(kinds.CRDGroupVersion.WithKind("CustomResourceDefinition"))
	name := mapping.Resource.Resource + "." + gvk.Group
	if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
		return false // not a CRD (an aggregated API), or not ours to read
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		version, _ := v.(map[string]any)
		if version["name"] != gvk.Version {
			continue
		}
		_, found, _ := unstructured.NestedMap(version, "schema", "openAPIV3Schema", "properties", "status", "properties", "observedGeneration")
		return found
	}
	return false
}

// isCustomGroup tells whether a group can be a CRD's: not the core group,
// not a single-word built-in group (apps, batch, ...), not *.k8s.io.
func isCustomGroup(group string) bool {
	return strings.Contains(group, ".") && !strings.HasSuffix(group, ".k8s.io")
}
