package reliability_test

import (
	"context"
	"maps"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// objectHistory counts the watch events of every object with an owner
// label in one namespace: how often each was created, changed and deleted.
type objectHistory struct {
	mu     sync.Mutex
	counts map[manifests.ObjectKey]map[watch.EventType]int
}

// watchHistory starts one watch per owned kind for the rest of the spec.
func watchHistory(ctx context.Context, ns, prefix string) *objectHistory {
	GinkgoHelper()
	return watchHistorySince(ctx, ns, prefix, "")
}

// watchHistorySince is watchHistory from resourceVersion on: it sees every
// change made after it ("": the objects that exist count as ADDED). A watch
// ends when the API server stops; start a new one after a restart.
func watchHistorySince(ctx context.Context, ns, prefix, resourceVersion string) *objectHistory {
	GinkgoHelper()
	h := &objectHistory{counts: map[manifests.ObjectKey]map[watch.EventType]int{}}
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	Expect(err).NotTo(HaveOccurred())
	for _, gvk := range ownedKinds[:3] { // ConfigMaps, Secrets, Services
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		w, err := wc.Watch(ctx, list, client.InNamespace(ns), client.HasLabels{manifests.Key(prefix, manifests.LabelOwnerID)},
			&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: resourceVersion}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(w.Stop)
		go h.record(w, gvk.Kind)
	}
	return h
}

func (h *objectHistory) record(w watch.Interface, kind string) {
	for event := range w.ResultChan() {
		u, ok := event.Object.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		key := manifests.ObjectKey{Kind: kind, Namespace: u.GetNamespace(), Name: u.GetName()}
		h.mu.Lock()
		if h.counts[key] == nil {
			h.counts[key] = map[watch.EventType]int{}
		}
		h.counts[key][event.Type]++
		h.mu.Unlock()
	}
}

// unexpected lists the objects whose history is not want (e.g. one ADDED).
func (h *objectHistory) unexpected(want map[watch.EventType]int) map[string]map[watch.EventType]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]map[watch.EventType]int{}
	for key, counts := range h.counts {
		for _, t := range []watch.EventType{watch.Added, watch.Modified, watch.Deleted} {
			if counts[t] != want[t] {
				out[key.String()] = counts
			}
		}
	}
	return out
}

// snapshot returns a copy of the counts.
func (h *objectHistory) snapshot() map[manifests.ObjectKey]map[watch.EventType]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[manifests.ObjectKey]map[watch.EventType]int, len(h.counts))
	for key, counts := range h.counts {
		out[key] = maps.Clone(counts)
	}
	return out
}

func (h *objectHistory) objects() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.counts)
}
