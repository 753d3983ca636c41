package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// neededNamespaces adds a Namespace object for every namespace that objects
// need and that neither the manifests nor the cluster have, when the
// namespace policy allows it. Such a namespace goes through the waves like
// any other object: recorded in the inventory before it is created, in the
// first wave that needs it, with delete policy orphan so that it is tracked
// but never deleted with the component. A namespace created so earlier stays
// in the manifests while objects need it, without a request; others are
// looked up only for objects never applied before, so a pass that changes
// nothing reads nothing, and one found to exist is not looked up again for
// namespaceMemory, so that the new components of one namespace read it
// once, not once a pass each.
func (a *Applier) neededNamespaces(ctx context.Context, p *plan.Preparer, objs []*plan.Desired, inventory []manifests.InventoryItem) ([]*plan.Desired, error) {
	var added []client.Object
	for _, need := range namespaceNeeds(objs) {
		create, err := a.mustCreate(ctx, need, inventory)
		if err != nil {
			return nil, err
		}
		if !create {
			continue
		}
		if p.Defaults.Namespace == manifests.NamespaceDoNotCreate {
			return nil, &MissingNamespaceError{Namespace: need.name, Object: need.first.Key}
		}
		added = append(added, a.namespaceObject(need))
	}
	if len(added) == 0 {
		return objs, nil
	}
	namespaces, err := p.Prepare(added)
	if err != nil {
		return nil, fmt.Errorf("namespaces the objects need: %w", err)
	}
	return append(objs, namespaces...), nil
}

// namespaceNeed is a namespace that rendered objects use but do not render.
type namespaceNeed struct {
	name    string
	wave    int16           // the first wave an object in it is applied in
	first   *plan.Desired   // the first object that needs it, for messages
	objects []*plan.Desired // every object in it
}

func namespaceNeeds(objs []*plan.Desired) []*namespaceNeed {
	rendered := map[string]bool{}
	for _, d := range objs {
		if d.Key.Group == kinds.GroupCore && d.Key.Kind == "Namespace" {
			rendered[d.Key.Name] = true
		}
	}
	byName := map[string]*namespaceNeed{}
	var needs []*namespaceNeed
	for _, d := range objs {
		ns := d.Key.Namespace
		if !d.Namespaced || ns == "" || rendered[ns] {
			continue
		}
		need, ok := byName[ns]
		if !ok {
			need = &namespaceNeed{name: ns, wave: d.Policies.ApplyOrder, first: d}
			byName[ns] = need
			needs = append(needs, need)
		}
		need.wave = min(need.wave, d.Policies.ApplyOrder)
		need.objects = append(need.objects, d)
	}
	return needs
}

// mustCreate tells whether the namespace belongs in the manifests: it was
// created by this component before (it is in the inventory), or an object in
// it has never been applied and the namespace does not exist. A namespace
// the identity may not read is left to the API server to judge when the
// objects are written.
func (a *Applier) mustCreate(ctx context.Context, need *namespaceNeed, inventory []manifests.InventoryItem) (bool, error) {
	if slices.ContainsFunc(inventory, func(item manifests.InventoryItem) bool {
		return item.Group == kinds.GroupCore && item.Kind == "Namespace" && item.Name == need.name
	}) {
		return true, nil
	}
	if allApplied(need.objects, inventory) {
		return false, nil
	}
	if _, exists := a.namespaces.Get(need.name); exists {
		return false, nil
	}
	ns := &metav1.PartialObjectMetadata{}
	ns.SetGroupVersionKind(namespaceGVK)
	err := a.target.Client.Get(ctx, client.ObjectKey{Name: need.name}, ns)
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err == nil:
		a.namespaces.Put(need.name, true)
		return false, nil
	case apierrors.IsForbidden(err):
		return false, nil
	}
	return false, fmt.Errorf("reading namespace %s: %w", need.name, err)
}

// namespaceMemory is how long a namespace read to exist is taken to exist
// without another read. A namespace deleted meanwhile fails the write of
// an object in it (not found), and the pass after the memory has passed
// creates it.
const namespaceMemory = 10 * time.Second

// allApplied tells whether every object has been written before, as the
// inventory says; only a new object can find its namespace missing.
func allApplied(objs []*plan.Desired, inventory []manifests.InventoryItem) bool {
	applied := make(map[manifests.ObjectKey]bool, len(inventory))
	for _, item := range inventory {
		if item.Digest != "" {
			applied[item.Key()] = true
		}
	}
	for _, d := range objs {
		if !applied[d.Key] {
			return false
		}
	}
	return true
}

// namespaceObject is the Namespace wavekit creates for need.
func (a *Applier) namespaceObject(need *namespaceNeed) client.Object {
	ns := &unstructured.Unstructured{}
	ns.SetGroupVersionKind(namespaceGVK)
	ns.SetName(need.name)
	ns.SetAnnotations(map[string]string{
		manifests.Key(a.opts.Name, manifests.AnnotationApplyOrder):   strconv.Itoa(int(need.wave)),
		manifests.Key(a.opts.Name, manifests.AnnotationDeletePolicy): string(manifests.DeleteOrphan),
	})
	return ns
}

var namespaceGVK = corev1.SchemeGroupVersion.WithKind("Namespace")
