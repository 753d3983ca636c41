package dashboard

import (
	"fmt"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// memberKeys are the annotations of a component that a set controls which
// name its cluster and wave.
type memberKeys struct {
	cluster, wave string
	// member and input: the member's key and input id, for a set's inputs.
	member, input string
}

// membership is where a component stands in the set that controls it.
type membership struct {
	// set is the UID of the controlling set.
	set string
	// key names the member in the set's status lines: its member
	// annotation, else its cluster, else its name.
	key string
	// cluster is the member's cluster; empty for a member of an input on
	// the operator's own cluster.
	cluster string
	input   string
	// wave is 1-based; 0 when the annotation is missing or not a number.
	wave int
}

// of reads the membership of a component; nil when keys is nil or no
// controller owns it.
func (k *memberKeys) of(u *unstructured.Unstructured) *membership {
	if k == nil {
		return nil
	}
	ref := metav1.GetControllerOfNoCopy(u)
	if ref == nil {
		return nil
	}
	annotations := u.GetAnnotations()
	wave, _ := strconv.Atoi(annotations[k.wave])
	m := &membership{set: string(ref.UID), cluster: annotations[k.cluster], wave: wave}
	if k.input != "" {
		m.input = annotations[k.input]
	}
	if k.member != "" {
		m.key = annotations[k.member]
	}
	switch {
	case m.key != "":
	case m.cluster != "":
		m.key = m.cluster
	default:
		m.key, m.cluster = u.GetName(), u.GetName()
	}
	if m.input != "" && annotations[k.cluster] == "" {
		m.cluster = "" // an input's member on the operator's own cluster
	}
	return m
}

// setKindInfo is a set kind the page shows and the kind of its members.
type setKindInfo struct {
	kindInfo
	member kindInfo
	keys   *memberKeys
}

// rolloutFields are a set's status.rollout.
type rolloutFields struct {
	Wave        int32 `json:"wave"`
	Waves       int32 `json:"waves"`
	Clusters    int32 `json:"clusters"`
	Ready       int32 `json:"ready"`
	Updating    int32 `json:"updating"`
	Failed      int32 `json:"failed"`
	Unreachable int32 `json:"unreachable"`
	Waiting     int32 `json:"waiting"`
}

// leftCluster is an entry of a set's status.leftClusters.
type leftCluster struct {
	Cluster     string      `json:"cluster"`
	Component   string      `json:"component"`
	Time        metav1.Time `json:"time"`
	Reason      string      `json:"reason"`
	Objects     []string    `json:"objects"`
	ObjectCount int32       `json:"objectCount"`
}

// setStatus is the part of a set's status the page reads.
type setStatus struct {
	Rollout      rolloutFields      `json:"rollout"`
	Conditions   []metav1.Condition `json:"conditions"`
	LeftClusters []leftCluster      `json:"leftClusters"`
	// Clusters are the set's lines about its clusters: a pulled cluster's
	// state is there only (it has no component on the hub).
	Clusters []string `json:"clusters"`
}

// setRecord is what the page knows of one set: nothing of its template.
type setRecord struct {
	kind       setKindInfo
	namespace  string
	name       string
	uid        string
	created    time.Time
	deleting   bool
	paused     bool
	status     setStatus
	ready      metav1.Condition
	lastChange time.Time
}

// newSetRecord reads one set: spec.paused and its status.
func newSetRecord(kind setKindInfo, obj map[string]any) (*setRecord, error) {
	u := unstructured.Unstructured{Object: obj}
	r := &setRecord{kind: kind, namespace: u.GetNamespace(), name: u.GetName(), uid: string(u.GetUID()),
		created: u.GetCreationTimestamp().Time, deleting: u.GetDeletionTimestamp() != nil}
	r.paused, _, _ = unstructured.NestedBool(obj, "spec", "paused")
	if m, ok := obj["status"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &r.status); err != nil {
			return nil, fmt.Errorf("reading the status of %s %s/%s: %w", kind.gvk.Kind, r.namespace, r.name, err)
		}
	}
	r.ready = findCondition(r.status.Conditions, component.ConditionReady)
	r.lastChange = r.created
	for _, c := range r.status.Conditions {
		if c.LastTransitionTime.After(r.lastChange) {
			r.lastChange = c.LastTransitionTime.Time
		}
	}
	return r, nil
}

// key identifies a set among every set kind the page shows.
func (r *setRecord) key() string { return recordKey(r.kind.key, r.namespace, r.name) }

// setHandler keeps the sets of one kind up to date.
func (s *store) setHandler(kind setKindInfo) toolscache.ResourceEventHandler {
	read := func(obj any) (*setRecord, error) {
		m, err := toUnstructured(unwrapTombstone(obj))
		if err != nil {
			return nil, err
		}
		return newSetRecord(kind, m)
	}
	update := func(obj any) {
		r, err := read(obj)
		if err != nil {
			s.log.Error(err, "reading a set")
			return
		}
		s.mu.Lock()
		s.sets[r.key()] = r
		s.mu.Unlock()
		s.changed(r.namespace)
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    update,
		UpdateFunc: func(_, obj any) { update(obj) },
		DeleteFunc: func(obj any) {
			if r, err := read(obj); err == nil {
				s.mu.Lock()
				delete(s.sets, r.key())
				s.mu.Unlock()
				s.changed(r.namespace)
			}
		},
	}
}

// listSets returns the sets that visible admits, by namespace and name.
func (s *store) listSets(visible func(r *setRecord) bool) []*setRecord {
	s.mu.RLock()
	var out []*setRecord
	for _, r := range s.sets {
		if visible(r) {
			out = append(out, r)
		}
	}
	s.mu.RUnlock()
	sortSets(out)
	return out
}

// getSet returns one set, or nil.
func (s *store) getSet(key string) *setRecord {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.sets[key]
}

// members returns the components that the set controls.
func (s *store) members(set *setRecord) []*record {
	return s.list(func(r *record) bool {
		return r.member != nil && r.member.set == set.uid && r.kind.key == set.kind.member.key && r.namespace == set.namespace
	})
}
