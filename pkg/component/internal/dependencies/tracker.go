package dependencies

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/settings"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/shard"
)

// dependentIndex maps each component to the components that depend on it.
// The component events keep it (Tracker.Events), not a field
// index of the manager's cache: a field index makes the manager wait for
// that cache before it starts, so an operator that may not list its
// components could then not even be stopped.
type dependentIndex struct {
	mu         sync.Mutex
	dependsOn  map[types.NamespacedName][]types.NamespacedName
	dependents map[types.NamespacedName]map[types.NamespacedName]bool
}

func newDependentIndex() *dependentIndex {
	return &dependentIndex{dependsOn: map[types.NamespacedName][]types.NamespacedName{},
		dependents: map[types.NamespacedName]map[types.NamespacedName]bool{}}
}

// set records the dependencies of id; nil forgets id.
func (x *dependentIndex) set(id types.NamespacedName, deps []types.NamespacedName) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, d := range x.dependsOn[id] {
		delete(x.dependents[d], id)
		if len(x.dependents[d]) == 0 {
			delete(x.dependents, d)
		}
	}
	delete(x.dependsOn, id)
	if len(deps) == 0 {
		return
	}
	x.dependsOn[id] = deps
	for _, d := range deps {
		if x.dependents[d] == nil {
			x.dependents[d] = map[types.NamespacedName]bool{}
		}
		x.dependents[d][id] = true
	}
}

// of returns the components that depend on id, sorted.
func (x *dependentIndex) of(id types.NamespacedName) []types.NamespacedName {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]types.NamespacedName, 0, len(x.dependents[id]))
	for d := range x.dependents[id] {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b types.NamespacedName) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// Tracker keeps what the components of one type depend on and
// answers the reconciler's questions about it: is a dependency Ready at its
// current generation, is there a cycle, which components depend on this
// one. It enqueues the components a change of another concerns.
type Tracker struct {
	// client reads components from the manager's cache.
	client client.Client
	// apiReader reads components the cache does not hold: a shard caches
	// only its own, and its dependents may be in other shards.
	apiReader client.Reader
	// sharded is set when the reconciler selects its components by label.
	sharded bool
	// outside are label selectors whose union is every component the
	// reconciler's selector leaves out, which the cache does not hold;
	// nil when no label selector can say it: then every component is
	// listed.
	outside []labels.Selector
	// namespaces are those the reconciler watches components in (nil:
	// every namespace): its lists and informers of other shards' components
	// stay within them.
	namespaces []string
	// enabled is set when the component type implements
	// DependencyConfiguration.
	enabled bool
	// newObject returns an empty component of the type.
	newObject func() api.Component
	index     *dependentIndex
	// others keeps what the components outside the selector depend on,
	// once WatchOutside started it; nil when nothing lies outside.
	others *outsideDependencies
}

// New returns the tracker of the components of the type newObject makes
// that client and apiReader read; selector is the one the reconciler
// selects its components by, nil for every component; namespaces those it
// watches them in, nil for every namespace.
func New(c client.Client, apiReader client.Reader, selector labels.Selector, namespaces []string, newObject func() api.Component) *Tracker {
	_, enabled := api.Optional[api.DependencyConfiguration](newObject())
	t := &Tracker{client: c, apiReader: apiReader, sharded: selector != nil, namespaces: namespaces, enabled: enabled,
		index: newDependentIndex(), newObject: newObject}
	if t.sharded {
		t.outside, _ = shard.Outside(selector)
	}
	return t
}

// NotReady says why the component id is not Ready at its current
// generation, or "" when it is.
func (t *Tracker) NotReady(ctx context.Context, id types.NamespacedName) string {
	dep, err := t.read(ctx, id)
	switch {
	case apierrors.IsNotFound(err):
		return "it does not exist"
	case err != nil:
		return fmt.Sprintf("reading it: %v", err)
	case dep.GetDeletionTimestamp() != nil:
		return "it is being deleted"
	}
	status := dep.GetStatus()
	ready := status.ReadyCondition()
	switch {
	case ready == nil || status.ObservedGeneration != dep.GetGeneration() || ready.ObservedGeneration != dep.GetGeneration():
		return fmt.Sprintf("generation %d is not reconciled yet", dep.GetGeneration())
	case ready.Status != "True":
		return fmt.Sprintf("it is %s: %s", status.State, ready.Message)
	}
	return ""
}

// read reads a component from the cache, or from the API server when the
// cache does not hold it (a component of another shard).
func (t *Tracker) read(ctx context.Context, id types.NamespacedName) (api.Component, error) {
	obj := t.newObject()
	err := t.client.Get(ctx, id, obj)
	if apierrors.IsNotFound(err) && t.sharded && t.apiReader != nil {
		err = t.apiReader.Get(ctx, id, obj)
	}
	return obj, err
}

// Path returns a path of dependencies from one component to
// another, both ends included, or nil when from does not depend, directly
// or through others, on to. A path from a component to itself is a cycle.
// It follows dependencies as the cache holds them, at most
// maxDependencyWalk components.
func (t *Tracker) Path(ctx context.Context, from, to types.NamespacedName) []types.NamespacedName {
	seen := map[types.NamespacedName]bool{}
	var walk func(path []types.NamespacedName) []types.NamespacedName
	walk = func(path []types.NamespacedName) []types.NamespacedName {
		c, err := t.read(ctx, path[len(path)-1])
		if err != nil {
			return nil
		}
		for _, dep := range settings.Dependencies(c) {
			if dep == to {
				return append(slices.Clone(path), dep)
			}
			if seen[dep] || len(seen) >= maxDependencyWalk {
				continue
			}
			seen[dep] = true
			if found := walk(append(path, dep)); found != nil {
				return found
			}
		}
		return nil
	}
	return walk([]types.NamespacedName{from})
}

// DependentsOf lists the components whose dependencies include id: from
// the index the component events keep and, for a shard, from the API
// server for the components outside its selector (other shards), which
// its cache does not hold: from the informers of watchOutside once they
// have synced, else from a list of those only (in an operator without
// shards, what lies outside is a list of no items).
func (t *Tracker) DependentsOf(ctx context.Context, id types.NamespacedName) ([]types.NamespacedName, error) {
	if !t.enabled {
		return nil, nil
	}
	found := t.index.of(id)
	if !t.sharded {
		return found, nil
	}
	if t.others != nil && t.others.synced() {
		found = append(found, t.others.index.of(id)...)
	} else {
		var err error
		if found, err = t.listOutside(ctx, id, found); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(found, func(a, b types.NamespacedName) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(found), nil
}

// listOutside adds to found the dependents of id that the components
// outside the selector have, listed from the API server.
func (t *Tracker) listOutside(ctx context.Context, id types.NamespacedName, found []types.NamespacedName) ([]types.NamespacedName, error) {
	selectors := t.outside
	if selectors == nil {
		found, selectors = nil, []labels.Selector{labels.Everything()}
	}
	for _, selector := range selectors {
		listed, err := t.listDependents(ctx, id, selector)
		if err != nil {
			return nil, err
		}
		found = append(found, listed...)
	}
	return found, nil
}

// listDependents lists, from the API server, the components selector
// matches whose dependencies include id, in each namespace the tracker
// watches (or the whole cluster).
func (t *Tracker) listDependents(ctx context.Context, id types.NamespacedName, selector labels.Selector) ([]types.NamespacedName, error) {
	if len(t.namespaces) == 0 {
		return t.listDependentsIn(ctx, id, selector, "")
	}
	var out []types.NamespacedName
	for _, ns := range t.namespaces {
		found, err := t.listDependentsIn(ctx, id, selector, ns)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// listDependentsIn is listDependents in one namespace ("": every one).
func (t *Tracker) listDependentsIn(ctx context.Context, id types.NamespacedName, selector labels.Selector, namespace string) ([]types.NamespacedName, error) {
	list, err := t.newList()
	if err != nil {
		return nil, err
	}
	if err := t.apiReader.List(ctx, list, client.MatchingLabelsSelector{Selector: selector}, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing the components that depend on %s: %w", id, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, fmt.Errorf("listing the components that depend on %s: %w", id, err)
	}
	var out []types.NamespacedName
	for _, item := range items {
		c, ok := item.(api.Component)
		if ok && slices.Contains(settings.Dependencies(c), id) {
			out = append(out, types.NamespacedName{Namespace: c.GetNamespace(), Name: c.GetName()})
		}
	}
	return out, nil
}

// newList returns an empty list of the component type.
func (t *Tracker) newList() (client.ObjectList, error) {
	gvk, err := apiutil.GVKForObject(t.newObject(), t.client.Scheme())
	if err != nil {
		return nil, fmt.Errorf("finding the component kind: %w", err)
	}
	obj, err := t.client.Scheme().New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err != nil {
		return nil, fmt.Errorf("creating a list of %s: %w", gvk.Kind, err)
	}
	list, ok := obj.(client.ObjectList)
	if !ok {
		return nil, fmt.Errorf("%sList is not a list", gvk.Kind)
	}
	return list, nil
}

// Events keeps the dependent index and enqueues the components a
// change of one component concerns: those that depend on it when it
// appears, goes, or becomes (or stops being) Ready; and those it depends on
// when it goes, since their deletion may wait for it.
func (t *Tracker) Events() handler.TypedEventHandler[client.Object, reconcile.Request] {
	type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]
	return handler.TypedFuncs[client.Object, reconcile.Request]{
		CreateFunc: func(_ context.Context, e event.TypedCreateEvent[client.Object], q queue) {
			t.indexDependencies(e.Object)
			t.enqueueDependents(e.Object, q)
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[client.Object], q queue) {
			t.indexDependencies(e.ObjectNew)
			if readyAtGeneration(e.ObjectOld) != readyAtGeneration(e.ObjectNew) ||
				(e.ObjectOld.GetDeletionTimestamp() == nil) != (e.ObjectNew.GetDeletionTimestamp() == nil) {
				t.enqueueDependents(e.ObjectNew, q)
			}
		},
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[client.Object], q queue) {
			t.enqueueDependents(e.Object, q)
			id := types.NamespacedName{Namespace: e.Object.GetNamespace(), Name: e.Object.GetName()}
			t.index.set(id, nil)
			if c, ok := e.Object.(api.Component); ok {
				for _, dep := range settings.Dependencies(c) {
					q.Add(reconcile.Request{NamespacedName: dep})
				}
			}
		},
	}
}

func (t *Tracker) indexDependencies(obj client.Object) {
	if c, ok := obj.(api.Component); ok {
		t.index.set(types.NamespacedName{Namespace: c.GetNamespace(), Name: c.GetName()}, settings.Dependencies(c))
	}
}

func (t *Tracker) enqueueDependents(obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	for _, d := range t.index.of(types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}) {
		q.Add(reconcile.Request{NamespacedName: d})
	}
}

// Enabled tells whether the component type implements
// DependencyConfiguration: without it, there is nothing to track.
func (t *Tracker) Enabled() bool { return t.enabled }

// readyAtGeneration tells whether a component is Ready at its generation.
func readyAtGeneration(obj client.Object) bool {
	c, ok := obj.(api.Component)
	if !ok {
		return false
	}
	status := c.GetStatus()
	ready := status.ReadyCondition()
	return ready != nil && ready.Status == "True" && status.ObservedGeneration == c.GetGeneration() && obj.GetDeletionTimestamp() == nil
}

// maxDependencyWalk bounds how many components a cycle check reads.
const maxDependencyWalk = 256
