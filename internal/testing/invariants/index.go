package invariants

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/internal/testing/history"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Facts are what the checks know besides the history.
type Facts struct {
	// Operator is the operator name: the prefix of its annotations and
	// owner label.
	Operator string
	// ComponentCluster is the cluster the Components live in ("main").
	ComponentCluster string
	// Own are the test's own writes (hand edits, objects of others), by
	// OwnKey: the history does not count them as the operator's.
	Own map[string]bool
	// Foreign are the objects of others, by Event.Key: the operator must
	// never change them.
	Foreign map[string]bool
	// Gaps are the stretches the recorders may have missed.
	Gaps []history.Gap
}

// OwnKey names one write: the object's Event.Key and its resourceVersion.
func OwnKey(eventKey string, rv uint64) string { return fmt.Sprintf("%s@%d", eventKey, rv) }

// timeline is the events of one object in the order of its versions.
type timeline []history.Event

// index groups events by object; each timeline is in resourceVersion order.
func index(events []history.Event) map[string]timeline {
	out := map[string]timeline{}
	for _, e := range events {
		out[e.Key()] = append(out[e.Key()], e)
	}
	for _, t := range out {
		sort.SliceStable(t, func(i, j int) bool { return t[i].RV < t[j].RV })
	}
	return out
}

// ownerOf returns the value of the owner label of u ("" when it has none).
func (f Facts) ownerOf(u *unstructured.Unstructured) string {
	return u.GetLabels()[manifests.Key(f.Operator, manifests.LabelOwnerID)]
}

// wave is the apply-order of u (0 when it has none or it does not parse).
func (f Facts) wave(u *unstructured.Unstructured) int {
	order := u.GetAnnotations()[manifests.Key(f.Operator, manifests.AnnotationApplyOrder)]
	if order == "" {
		order = u.GetAnnotations()[manifests.Key(f.Operator, manifests.AnnotationOrder)]
	}
	var n int
	_ = json.Unmarshal([]byte(order), &n)
	return n
}

// content is what a write changes of an object: everything but its status
// and the metadata the API server and controllers keep.
func content(u *unstructured.Unstructured) string {
	c := map[string]any{}
	for k, v := range u.Object {
		if k != "status" && k != "metadata" {
			c[k] = v
		}
	}
	c["labels"] = u.GetLabels()
	annotations := map[string]string{}
	for k, v := range u.GetAnnotations() {
		if !strings.Contains(k, "kubernetes.io/") {
			annotations[k] = v
		}
	}
	c["annotations"] = annotations
	b, _ := json.Marshal(c)
	return string(b)
}

// writes are the events of t that wrote its content (a create, or a change
// of content), besides listings, whose time of writing is not known.
func (t timeline) writes() []history.Event {
	var out []history.Event
	last := ""
	for _, e := range t {
		switch e.Type {
		case history.Deleted, history.Vanished:
			last = ""
			continue
		case history.Listed:
			last = content(e.Object)
			continue
		}
		if c := content(e.Object); e.Type == history.Added || c != last {
			out = append(out, e)
			last = c
		}
	}
	return out
}

// at is the state of the object just before rv: the last event with a
// lower version, or false when it did not exist then.
func (t timeline) at(rv uint64) (history.Event, bool) {
	var found history.Event
	ok := false
	for _, e := range t {
		if e.RV >= rv {
			break
		}
		found, ok = e, e.Type != history.Deleted && e.Type != history.Vanished
	}
	return found, ok
}

// inGap tells whether the recorders of kind on cluster may have missed a
// change after version from and before to.
func (f Facts) inGap(cluster, kind string, from, to uint64) bool {
	for _, g := range f.Gaps {
		if g.Cluster == cluster && g.Kind == kind && g.From < to && g.To > from {
			return true
		}
	}
	return false
}
