package kinds

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Remembered returns mapper with its answers to RESTMapping for one kind at
// one version kept: controller-runtime's cache asks that for every object
// it reads (is the kind namespaced?), and its dynamic mapper builds each
// answer anew (a twentieth of the CLI's CPU for an install). Any other
// question is the mapper's, and forgets what was kept of the group it names,
// as does a RESTMapping the mapper answers: those are what make the mapper
// read the group's resources again, which may no longer serve a kept kind.
// Reset forgets everything.
func Remembered(mapper meta.RESTMapper) meta.ResettableRESTMapper {
	return &remembered{RESTMapper: mapper, mappings: map[schema.GroupVersionKind]meta.RESTMapping{}}
}

type remembered struct {
	meta.RESTMapper
	mu       sync.RWMutex
	mappings map[schema.GroupVersionKind]meta.RESTMapping
}

func (r *remembered) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	if len(versions) != 1 {
		r.forget(gk.Group)
		return r.RESTMapper.RESTMapping(gk, versions...)
	}
	gvk := gk.WithVersion(versions[0])
	r.mu.RLock()
	mapping, ok := r.mappings[gvk]
	r.mu.RUnlock()
	if ok {
		return &mapping, nil
	}
	r.forget(gk.Group)
	answer, err := r.RESTMapper.RESTMapping(gk, versions...)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.mappings[gvk] = *answer
	r.mu.Unlock()
	return answer, nil
}

func (r *remembered) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	r.forget(gk.Group)
	return r.RESTMapper.RESTMappings(gk, versions...)
}

func (r *remembered) KindFor(resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	r.forget(resource.Group)
	return r.RESTMapper.KindFor(resource)
}

func (r *remembered) KindsFor(resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	r.forget(resource.Group)
	return r.RESTMapper.KindsFor(resource)
}

func (r *remembered) ResourceFor(resource schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	r.forget(resource.Group)
	return r.RESTMapper.ResourceFor(resource)
}

func (r *remembered) ResourcesFor(resource schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	r.forget(resource.Group)
	return r.RESTMapper.ResourcesFor(resource)
}

func (r *remembered) Reset() {
	r.mu.Lock()
	clear(r.mappings)
	r.mu.Unlock()
	meta.MaybeResetRESTMapper(r.RESTMapper)
}

// forget drops the kept mappings of group. The empty group, the core
// group's name and a partial resource's, drops them all: a partial
// resource may make the mapper read any group.
func (r *remembered) forget(group string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for gvk := range r.mappings {
		if group == "" || gvk.Group == group {
			delete(r.mappings, gvk)
		}
	}
}
