package dashboard

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// definitions are the objects of Options.Definitions: each defines a kind of
// components, which the page adds to its kinds once the definition's status
// names it (status.apiVersion and status.kind), and shows with its
// revisions and rollout.
type definitions struct {
	kind      kindInfo
	informers cache.Informers
	mapper    meta.RESTMapper
	ctx       context.Context

	mu      sync.RWMutex
	records map[string]*definitionRecord
}

// definitionRecord is what the page shows of a definition.
type definitionRecord struct {
	name      string
	uid       string
	kind      schema.GroupVersionKind // served; empty before
	revision  int64
	instances int64
	revisions []revisionView
	rollout   definitionRollout
	ready     metav1.Condition
	created   time.Time
}

// revisionView is a revision and how many instances run it.
type revisionView struct {
	Revision  int64
	Instances int64
	Source    string
}

// definitionRollout is where the move to the newest revision is.
type definitionRollout struct {
	Phase       string
	Wave, Waves int64
	Failed      string // the instance it halted at
	Message     string
	// From is the revision the instances ran before the rollout.
	From int64
}

// watchDefinitions keeps the definitions' records, and adds the kinds they
// serve to the page.
func (h *Handler) watchDefinitions(ctx context.Context, informers cache.Informers, mapper meta.RESTMapper) error {
	if h.opts.Definitions == nil {
		return nil
	}
	kind, err := lookupKind(mapper, *h.opts.Definitions)
	if meta.IsNoMatchError(err) {
		h.opts.Log.Info("the API server does not serve this kind of definition: the page leaves it out", "kind", h.opts.Definitions.String())
		return nil
	}
	if err != nil {
		return err
	}
	h.definitions = &definitions{kind: kind, informers: informers, mapper: mapper, ctx: ctx, records: map[string]*definitionRecord{}}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kind.gvk)
	return h.watch(ctx, informers, u, h.definitionHandler())
}

func (h *Handler) definitionHandler() toolscache.ResourceEventHandler {
	update := func(obj any) {
		m, err := toUnstructured(obj)
		if err != nil {
			h.opts.Log.Error(err, "reading a definition")
			return
		}
		r := newDefinitionRecord(&unstructured.Unstructured{Object: m})
		h.definitions.put(r)
		if !r.kind.Empty() {
			if err := h.addKind(r.kind); err != nil {
				h.opts.Log.Error(err, "showing the instances of a defined kind", "kind", r.kind.String())
			}
		}
		h.live.publish("")
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    update,
		UpdateFunc: func(_, obj any) { update(obj) },
		DeleteFunc: func(obj any) {
			if m, err := toUnstructured(unwrapTombstone(obj)); err == nil {
				h.definitions.remove((&unstructured.Unstructured{Object: m}).GetName())
				h.live.publish("")
			}
		},
	}
}

// addKind shows the components of gvk too, once.
func (h *Handler) addKind(gvk schema.GroupVersionKind) error {
	h.kindsMu.Lock()
	if slices.ContainsFunc(h.kinds, func(k kindInfo) bool { return k.gvk == gvk }) {
		h.kindsMu.Unlock()
		return nil
	}
	kind, err := lookupKind(h.definitions.mapper, gvk)
	if err != nil {
		h.kindsMu.Unlock()
		return err
	}
	kind.defined = true
	h.kinds = append(h.kinds, kind)
	h.kindsMu.Unlock()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return h.watch(h.definitions.ctx, h.definitions.informers, u, h.store.componentHandler(kind, nil))
}

func newDefinitionRecord(u *unstructured.Unstructured) *definitionRecord {
	r := &definitionRecord{name: u.GetName(), uid: string(u.GetUID()), created: u.GetCreationTimestamp().Time}
	apiVersion, _, _ := unstructured.NestedString(u.Object, "status", "apiVersion")
	kind, _, _ := unstructured.NestedString(u.Object, "status", "kind")
	if apiVersion != "" && kind != "" {
		r.kind = schema.FromAPIVersionAndKind(apiVersion, kind)
	}
	r.revision, _, _ = unstructured.NestedInt64(u.Object, "status", "revision")
	r.instances, _, _ = unstructured.NestedInt64(u.Object, "status", "instances")
	revisions, _, _ := unstructured.NestedSlice(u.Object, "status", "revisions")
	for _, item := range revisions {
		m, _ := item.(map[string]any)
		rev, _, _ := unstructured.NestedInt64(m, "revision")
		n, _, _ := unstructured.NestedInt64(m, "instances")
		source, _, _ := unstructured.NestedString(m, "source")
		r.revisions = append(r.revisions, revisionView{Revision: rev, Instances: n, Source: source})
	}
	if rollout, ok, _ := unstructured.NestedMap(u.Object, "status", "rollout"); ok {
		r.rollout.Phase, _, _ = unstructured.NestedString(rollout, "phase")
		r.rollout.Wave, _, _ = unstructured.NestedInt64(rollout, "wave")
		r.rollout.Waves, _, _ = unstructured.NestedInt64(rollout, "waves")
		r.rollout.Failed, _, _ = unstructured.NestedString(rollout, "failed", "instance")
		r.rollout.Message, _, _ = unstructured.NestedString(rollout, "message")
		r.rollout.From, _, _ = unstructured.NestedInt64(rollout, "from")
	}
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		if m["type"] == component.ConditionReady {
			r.ready.Status = metav1.ConditionStatus(fmt.Sprint(m["status"]))
			r.ready.Reason, _ = m["reason"].(string)
			r.ready.Message, _ = m["message"].(string)
		}
	}
	return r
}

// get is the record of the definition name, nil if none.
func (d *definitions) get(name string) *definitionRecord {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.records[name]
}

// target is the action target of a definition: cluster-scoped, its
// namespace "-" in the actions' URLs.
func (d *definitions) target(r *definitionRecord) actionTarget {
	return actionTarget{kind: d.kind, namespace: clusterScope, name: r.name, uid: r.uid, definition: r, page: "/"}
}

// halted is the instance a definition's rollout halted at, its kind and
// the revision to pin it to; ok is false unless the rollout is halted.
func (r *definitionRecord) halted() (instance string, kind schema.GroupVersionKind, from int64, ok bool) {
	if r.rollout.Phase != "Halted" || r.rollout.Failed == "" || r.rollout.From < 1 || r.kind.Empty() {
		return "", kind, 0, false
	}
	return r.rollout.Failed, r.kind, r.rollout.From, true
}

func (d *definitions) put(r *definitionRecord) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.records[r.name] = r
}

func (d *definitions) remove(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.records, name)
}

func (d *definitions) list() []*definitionRecord {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]*definitionRecord, 0, len(d.records))
	for _, r := range d.records {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// definitionRow is a definition in the overview.
type definitionRow struct {
	Name       string
	Kind       string
	Revision   int64
	Instances  int64
	Revisions  []revisionView
	Rollout    definitionRollout
	Ready      string
	Reason     string
	Message    string
	Created    time.Time
	ByRevision string
	// Actions are the viewer's buttons: promote, while the rollout is
	// halted at an instance.
	Actions []actionButton
}

// definitionRows are the definitions the viewer may list, and whose name
// has query in it.
func (h *Handler) definitionRows(ctx context.Context, v *viewer, query string) []definitionRow {
	if h.definitions == nil || !v.mayList(ctx, h.definitions.kind, "") {
		return nil
	}
	var rows []definitionRow
	for _, r := range h.definitions.list() {
		if !strings.Contains(r.name, strings.ToLower(query)) {
			continue
		}
		row := definitionRow{Name: r.name, Kind: r.kind.Kind, Revision: r.revision, Instances: r.instances, Revisions: r.revisions,
			Rollout: r.rollout, Ready: string(r.ready.Status), Reason: r.ready.Reason, Message: r.ready.Message, Created: r.created}
		if !r.kind.Empty() {
			row.Kind = r.kind.Kind + " (" + r.kind.GroupVersion().String() + ")"
		}
		var parts []string
		for _, rev := range r.revisions {
			if rev.Instances > 0 {
				parts = append(parts, fmt.Sprintf("%d: %d", rev.Revision, rev.Instances))
			}
		}
		row.ByRevision = strings.Join(parts, ", ")
		row.Actions = h.buttons(ctx, v, h.definitions.target(r))
		rows = append(rows, row)
	}
	return rows
}
