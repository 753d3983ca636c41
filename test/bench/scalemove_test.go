package bench_test

import (
	"fmt"
	"maps"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// moveResult is the shard move of a sharded case: Components moved from
// one shard to another by their label, the time until the new owner had
// them all Ready, and the writes of their objects the move made (each
// object's MODIFIED events in a watch of the namespace; the goal is one,
// the relabel, or none).
type moveResult struct {
	Components int    `json:"components"`
	From       string `json:"from"`
	To         string `json:"to"`
	// Seconds from the first relabel until the new owner reports them all
	// Ready and the old one none of them.
	Seconds float64 `json:"seconds"`
	// Objects are the moved Components' objects; WritesPerObject the mean
	// of their MODIFIED events, MaxWrites the most any had, WrittenTwice
	// how many had more than one.
	Objects         int     `json:"objects"`
	WritesPerObject float64 `json:"writesPerObject"`
	MaxWrites       int     `json:"maxWrites"`
	WrittenTwice    int     `json:"writtenTwice"`
	// Phase lasts until the replicas are quiet after the move.
	Phase phase `json:"phase"`
}

// moveShard moves min(1 000, R/10) Components of the first shard to the
// second, eight relabels at a time, and measures the move (sharded cases
// only).
func (s *scaleRun) moveShard() {
	if s.c.shards < 2 {
		return
	}
	from, to := s.replicas[0], s.replicas[1]
	n := min(1000, s.c.components/10)
	moved := make([]client.Object, 0, n)
	names := map[string]bool{}
	for i := 0; len(moved) < n; i += s.c.shards { // Component i is in shard i % shards
		moved = append(moved, &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: componentName(i)}})
		names[componentName(i)] = true
	}
	readyFrom, readyTo := s.readyOf(from), s.readyOf(to)
	writes := s.watchWrites(names)
	m := s.mark()
	label := s.ns + ".wavekit.dev/" + component.LabelShard
	patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:%q}}}`, label, to.key)
	c := s.client()
	inWorkers(s.b, 8, moved, func(o client.Object) error { return c.Patch(s.ctx, o, client.RawPatch(types.MergePatchType, patch)) })
	for s.readyOf(to) < readyTo+n || s.readyOf(from) > readyFrom-n {
		if s.ctx.Err() != nil || time.Since(m.at) > 30*time.Minute {
			s.b.Fatalf("moving %d Components: the new owner has %d of them Ready", n, s.readyOf(to)-readyTo)
		}
		time.Sleep(200 * time.Millisecond)
	}
	result := moveResult{Components: n, From: from.key, To: to.key, Seconds: time.Since(m.at).Seconds()}
	s.waitPasses(m.reconciles, n, 5*time.Second)
	result.Phase = s.since(m)
	perObject := writes.stop()
	result.Objects = len(perObject)
	total := 0
	for _, w := range perObject {
		total += w
		result.MaxWrites = max(result.MaxWrites, w)
		if w > 1 {
			result.WrittenTwice++
		}
	}
	if result.Objects > 0 {
		result.WritesPerObject = float64(total) / float64(result.Objects)
	}
	s.result.Move = &result
}

// readyOf is replica r's wavekit_components of state Ready (-1 when it
// does not answer).
func (s *scaleRun) readyOf(r *replica) int {
	n, err := scrapeSum(r.metrics, "wavekit_components", `state="Ready"`)
	if err != nil {
		return -1
	}
	return int(n)
}

// objectWrites counts the MODIFIED events of the objects of some
// Components (named after them, as the small chart names its objects).
type objectWrites struct {
	mu      sync.Mutex
	counts  map[string]int
	watches []watch.Interface
}

// watchWrites watches the kinds of the small chart in the namespace from
// now on and counts, per object of a Component in names, its MODIFIED
// events; an object without any counts 0.
func (s *scaleRun) watchWrites(names map[string]bool) *objectWrites {
	w := &objectWrites{counts: map[string]int{}}
	kinds := []schema.GroupVersionKind{{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"}, {Version: "v1", Kind: "ServiceAccount"}}
	if s.c.deployment {
		kinds = append(kinds, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	}
	wc, err := client.NewWithWatch(s.e.Config, client.Options{Scheme: s.e.Scheme})
	if err != nil {
		s.b.Fatal(err)
	}
	for _, gvk := range kinds {
		for name := range names {
			w.counts[gvk.Kind+"/"+name] = 0
		}
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := wc.List(s.ctx, list, client.InNamespace(s.ns), client.Limit(1)); err != nil {
			s.b.Fatal(err)
		}
		watcher, err := wc.Watch(s.ctx, list, client.InNamespace(s.ns), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.GetResourceVersion()}})
		if err != nil {
			s.b.Fatal(err)
		}
		w.watches = append(w.watches, watcher)
		go func() {
			for event := range watcher.ResultChan() {
				u, ok := event.Object.(*unstructured.Unstructured)
				if ok && event.Type == watch.Modified && names[u.GetName()] {
					w.mu.Lock()
					w.counts[gvk.Kind+"/"+u.GetName()]++
					w.mu.Unlock()
				}
			}
		}()
	}
	return w
}

// stop ends the watches and returns the writes per object.
func (w *objectWrites) stop() map[string]int {
	for _, watcher := range w.watches {
		watcher.Stop()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.counts)
}

// moveRow is the table row of the move, "" for none.
func (r scaleResult) moveRow() string {
	m := r.Move
	if m == nil {
		return ""
	}
	return fmt.Sprintf("| shard move: %d Components %s → %s | %.1f s until Ready on the new owner; writes per object %.2f (max %d, %d of %d objects written more than once); CPU %.1f s; %s |\n",
		m.Components, m.From, m.To, m.Seconds, m.WritesPerObject, m.MaxWrites, m.WrittenTwice, m.Objects, sum(m.Phase.CPU), m.Phase.Requests)
}
