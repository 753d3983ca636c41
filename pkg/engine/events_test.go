package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// The API server may send the watch event of a write before its answer. The
// specs hold every ConfigMap create's and delete's answer until the event has
// been seen, which makes that order certain.
var _ = Describe("Watch events of the applier's own writes", func() {
	It("are not taken for someone else's change when they come before the write's answer", func(ctx SpecContext) {
		held := &heldAnswers{}
		ns, h, events := newHeldSpec(ctx, "early", held)

		objects := []any{configMap(ns, "a", map[string]string{"k": "v"}), configMap(ns, "b", map[string]string{"k": "v"}), configMap(ns, "c", map[string]string{"k": "v"})}
		res, err := h.apply(ctx, objects...)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeTrue())
		Expect(held.late.Load()).To(BeZero(), "every create's answer waited for its event")
		Expect(held.held.Load()).To(BeEquivalentTo(3))
		Expect(events.unclaimed.Load()).To(BeZero(), "an event of the applier's own create was taken for a change")
		Expect(events.reactions.Load()).To(BeZero())

		// The cache holds what was written: the next pass sends nothing.
		h.counter.Reset()
		res, err = h.apply(ctx, objects...)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeTrue())
		Expect(h.counter.Snapshot()).To(BeEmpty(), h.counter.String())
	})

	It("still report a change someone else makes while the applier's write is under way", func(ctx SpecContext) {
		held := &heldAnswers{}
		ns, h, events := newHeldSpec(ctx, "meanwhile", held)
		held.meanwhile = func(name string) []string {
			// Someone changes the object after it was created, before the
			// applier hears back.
			theirs := getConfigMap(ctx, ns, name)
			theirs.Data = map[string]string{"k": "theirs"}
			Expect(env.Client.Update(ctx, theirs)).To(Succeed())
			return []string{theirs.ResourceVersion}
		}

		objects := []any{configMap(ns, "a", map[string]string{"k": "ours"})}
		res, err := h.apply(ctx, objects...)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeTrue())
		Expect(held.late.Load()).To(BeZero(), "the answer waited for both events")
		Expect(events.unclaimed.Load()).To(BeZero(), "both events came while the create was under way")
		Expect(events.reactions.Load()).To(BeEquivalentTo(1), "the other's change was held and then reported")

		// The pass that reaction starts puts the object back.
		held.meanwhile = nil
		res, err = h.apply(ctx, objects...)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeTrue())
		Expect(getConfigMap(ctx, ns, "a").Data).To(Equal(map[string]string{"k": "ours"}))
	})

	It("keep nothing of a deleted object once the cache has seen it go, even when its event comes first", func(ctx SpecContext) {
		held := &heldAnswers{}
		ns, h, _ := newHeldSpec(ctx, "gone", held)

		h.applyUntilDone(ctx, configMap(ns, "a", nil), configMap(ns, "b", nil), configMap(ns, "c", nil))
		h.deleteUntilDone(ctx)
		Expect(held.late.Load()).To(BeZero(), "every delete's answer waited for its event")
		Expect(held.held.Load()).To(BeEquivalentTo(6), "3 creates and 3 deletes")
		Expect(engine.Tombstones(h.applier)).To(BeZero())
	})
})

// newHeldSpec gives a spec a namespace of its own and a harness whose
// ConfigMap answers held holds until their events have been seen, and counts
// what the applier made of those events.
func newHeldSpec(ctx context.Context, name string, held *heldAnswers) (string, *harness, *configMapEvents) {
	ns := newNamespace(ctx)
	held.seen = newSeenVersions()
	h := newHarnessOn(ctx, held.wrap(env.Config), name+"-"+ns, optionsDefault(), engine.CachedTargetOptions{})
	h.owner.Namespace = ns
	return ns, h, watchConfigMaps(ctx, h, ns, held.seen)
}

// configMapEvents counts what the applier made of the ConfigMap events of
// one namespace: reactions it called later, and events it did not claim.
type configMapEvents struct {
	reactions, unclaimed atomic.Int32
}

// watchConfigMaps hands every ConfigMap event of ns in the harness's cache to
// the applier, as a reconciler's handler does, then records it in seen (a
// delete event as deletedVersion).
func watchConfigMaps(ctx context.Context, h *harness, ns string, seen *seenVersions) *configMapEvents {
	events := &configMapEvents{}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	informer, err := h.target.Cache.GetInformer(ctx, u)
	Expect(err).NotTo(HaveOccurred())
	handle := func(obj any) {
		o, ok := obj.(client.Object)
		if !ok || o.GetNamespace() != ns {
			return
		}
		if !h.applier.ClaimEvent(o, func() { events.reactions.Add(1) }) {
			events.unclaimed.Add(1)
		}
		seen.add(o.GetName(), o.GetResourceVersion())
	}
	gone := func(obj any) {
		if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if o, ok := obj.(client.Object); ok && o.GetNamespace() == ns {
			h.applier.ObjectGone(o)
			seen.add(o.GetName(), deletedVersion)
		}
	}
	registration, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    handle,
		UpdateFunc: func(_, obj any) { handle(obj) },
		DeleteFunc: gone,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { _ = informer.RemoveEventHandler(registration) })
	return events
}

// deletedVersion stands for a delete event in seenVersions.
const deletedVersion = "deleted"

// heldAnswers holds the answer to each ConfigMap create (a POST, or a
// server-side apply that created it) until the event of
// the version created has been seen, and of the versions meanwhile returns;
// and the answer to each ConfigMap delete until its delete event was seen.
type heldAnswers struct {
	seen      *seenVersions
	meanwhile func(name string) []string
	held      atomic.Int32 // answers held until their events were seen
	late      atomic.Int32 // answers released without their events, after a minute
}

func (hc *heldAnswers) wrap(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(req)
			switch {
			case err != nil:
				return resp, err
			case isConfigMapCreate(req) && resp.StatusCode == http.StatusCreated:
				return hc.holdCreate(resp)
			case req.Method == http.MethodDelete && strings.Contains(req.URL.Path, "/configmaps/") && resp.StatusCode == http.StatusOK:
				hc.wait(path.Base(req.URL.Path), []string{deletedVersion})
			}
			return resp, err
		})
	})
	return out
}

// isConfigMapCreate tells whether req may create a ConfigMap: a POST, or a
// server-side apply (a PATCH, answered 201 Created when it created one).
func isConfigMapCreate(req *http.Request) bool {
	return (req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/configmaps")) ||
		(req.Method == http.MethodPatch && strings.Contains(req.URL.Path, "/configmaps/"))
}

// wait waits until every one of versions of name was seen, or a minute.
func (hc *heldAnswers) wait(name string, versions []string) {
	if hc.seen.waitFor(name, versions, time.Minute) {
		hc.held.Add(1)
	} else {
		hc.late.Add(1)
	}
}

func (hc *heldAnswers) holdCreate(resp *http.Response) (*http.Response, error) {
	data, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	var created struct {
		Metadata struct{ Name, ResourceVersion string }
	}
	if err := json.Unmarshal(data, &created); err != nil {
		return nil, err
	}
	versions := []string{created.Metadata.ResourceVersion}
	if hc.meanwhile != nil {
		func() {
			defer GinkgoRecover()
			versions = append(versions, hc.meanwhile(created.Metadata.Name)...)
		}()
	}
	hc.wait(created.Metadata.Name, versions)
	return resp, nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// seenVersions records the versions of each object that watch events showed.
type seenVersions struct {
	mu      sync.Mutex
	seen    map[string]map[string]bool
	changed chan struct{}
}

func newSeenVersions() *seenVersions {
	return &seenVersions{seen: map[string]map[string]bool{}, changed: make(chan struct{})}
}

func (s *seenVersions) add(name, resourceVersion string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[name] == nil {
		s.seen[name] = map[string]bool{}
	}
	s.seen[name][resourceVersion] = true
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitFor reports whether every one of versions of name was seen within timeout.
func (s *seenVersions) waitFor(name string, versions []string, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		all := true
		for _, v := range versions {
			all = all && s.seen[name][v]
		}
		changed := s.changed
		s.mu.Unlock()
		if all {
			return true
		}
		select {
		case <-changed:
		case <-deadline:
			return false
		}
	}
}
