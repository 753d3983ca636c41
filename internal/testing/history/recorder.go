package history

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Source is one kind on one cluster to record.
type Source struct {
	// Cluster names the cluster in the events ("main", "member-1").
	Cluster string
	// Config reaches it, with the right to list and watch the kind.
	Config *rest.Config
	// Kind names the kind in the events; Resource is its API resource.
	Kind     string
	Resource schema.GroupVersionResource
	// Namespace limits the recording to one namespace ("" for all).
	Namespace string
}

// retryEvery is how long a broken watch waits before it tries again.
const retryEvery = 200 * time.Millisecond

// Record lists the objects of src into h and then records their changes
// until ctx ends. It returns once the first list is recorded, or its error.
func Record(ctx context.Context, h *History, src Source) error {
	client, err := dynamic.NewForConfig(src.Config)
	if err != nil {
		return fmt.Errorf("a client of %s: %w", src.Cluster, err)
	}
	w := &watcher{h: h, src: src, resource: client.Resource(src.Resource).Namespace(src.Namespace), known: map[string]*unstructured.Unstructured{}}
	rv, err := w.list(ctx, 0)
	if err != nil {
		return err
	}
	go w.run(ctx, rv)
	return nil
}

// watcher records one Source.
type watcher struct {
	h        *History
	src      Source
	resource dynamic.ResourceInterface
	// known are the objects that exist as far as the watch saw, by
	// namespace/name: a list after a gap tells from them what vanished.
	known map[string]*unstructured.Unstructured
}

// run watches from rv until ctx ends: again from the last version seen
// when a watch ends, from a new list when that version is gone.
func (w *watcher) run(ctx context.Context, rv uint64) {
	for ctx.Err() == nil {
		next, err := w.watch(ctx, rv)
		rv = next
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			if listed, err := w.list(ctx, rv); err == nil {
				rv = listed
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(retryEvery): // the API server may be away
		}
	}
}

// watch records events from rv until the watch ends, and returns the last
// version it saw and why it ended.
func (w *watcher) watch(ctx context.Context, rv uint64) (uint64, error) {
	watcher, err := w.resource.Watch(ctx, metav1.ListOptions{ResourceVersion: fmt.Sprint(rv), AllowWatchBookmarks: true})
	if err != nil {
		return rv, err
	}
	defer watcher.Stop()
	for e := range watcher.ResultChan() {
		if e.Type == watch.Error {
			return rv, apierrors.FromObject(e.Object)
		}
		u, ok := e.Object.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		rv = max(rv, ParseRV(u.GetResourceVersion()))
		if e.Type == watch.Bookmark {
			continue
		}
		w.record(Type(e.Type), u, ParseRV(u.GetResourceVersion()))
	}
	return rv, nil
}

// list records every object as Listed and those it no longer holds as
// Vanished (a gap after the version from, unless from is 0), and returns
// the list's version.
func (w *watcher) list(ctx context.Context, from uint64) (uint64, error) {
	list, err := w.resource.List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("listing %s on %s: %w", w.src.Kind, w.src.Cluster, err)
	}
	rv := ParseRV(list.GetResourceVersion())
	if from > 0 {
		w.h.gap(Gap{Cluster: w.src.Cluster, Kind: w.src.Kind, From: from, To: rv, At: time.Now()})
	}
	listed := map[string]bool{}
	for i := range list.Items {
		u := &list.Items[i]
		listed[u.GetNamespace()+"/"+u.GetName()] = true
		w.record(Listed, u, rv)
	}
	for key, last := range w.known {
		if !listed[key] {
			w.record(Vanished, last, rv)
		}
	}
	return rv, nil
}

func (w *watcher) record(t Type, u *unstructured.Unstructured, rv uint64) {
	u = u.DeepCopy()
	u.SetManagedFields(nil)
	key := u.GetNamespace() + "/" + u.GetName()
	if t == Deleted || t == Vanished {
		delete(w.known, key)
	} else {
		w.known[key] = u
	}
	w.h.add(Event{Cluster: w.src.Cluster, Kind: w.src.Kind, Type: t, Object: u, RV: rv, At: time.Now()})
}
