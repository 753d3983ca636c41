package fleet

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

func TestSummarizeSaysWhereTheRolloutIs(t *testing.T) {
	failed := &member{Cluster: cluster{Name: "a"}, Wave: 1, State: stateFailed, Message: "health check failed"}
	cases := []struct {
		name               string
		paused             bool
		members            []*member
		failedAt           *member
		wave               int
		ready              metav1.ConditionStatus
		reason             string
		reconciling, stall bool
		message            string
	}{
		{name: "every cluster Ready", members: []*member{{State: stateReady}, {State: stateReady}}, wave: 2,
			ready: metav1.ConditionTrue, reason: ReasonReady, message: "2 of 2 clusters Ready"},
		{name: "no cluster", wave: 0, ready: metav1.ConditionTrue, reason: ReasonReady, message: "0 of 0 clusters Ready"},
		{name: "a wave under way", members: []*member{{State: stateReady}, {State: stateUpdating}, {State: stateWaiting}}, wave: 1,
			ready: metav1.ConditionFalse, reason: ReasonProgressing, reconciling: true,
			message: "wave 1 of 2: 1 of 3 clusters Ready, 1 updating, 0 failed, 0 unreachable, 1 waiting for their wave"},
		{name: "an unreachable cluster is not Ready", members: []*member{{State: stateReady}, {State: stateUnreachable}}, wave: 2,
			ready: metav1.ConditionFalse, reason: ReasonProgressing, reconciling: true},
		{name: "a failed canary stalls the rollout", members: []*member{failed, {State: stateWaiting}}, failedAt: failed, wave: 1,
			ready: metav1.ConditionFalse, reason: ReasonFailed, stall: true,
			message: "the rollout stopped at wave 1 of 2: cluster a failed (Component web-a): health check failed"},
		{name: "paused", paused: true, members: []*member{{State: stateReady}, {State: stateWaiting}}, wave: 1,
			ready: metav1.ConditionFalse, reason: ReasonPaused, message: "paused at wave 1 of 2, writing nothing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			set := testSet(v1alpha1.Rollout{})
			set.Spec.Paused = tc.paused
			for i, m := range tc.members {
				m.Cluster.Name = string(rune('a' + i))
			}
			var status v1alpha1.ComponentSetStatus
			summarize(set, &plan{Members: tc.members, FailedAt: tc.failedAt, Wave: tc.wave, Waves: 2}, nil, &status)
			ready := meta.FindStatusCondition(status.Conditions, component.ConditionReady)
			if ready == nil || ready.Status != tc.ready || ready.Reason != tc.reason || !strings.HasPrefix(ready.Message, tc.message) {
				t.Errorf("Ready %+v, want %s/%s %q…", ready, tc.ready, tc.reason, tc.message)
			}
			if got := meta.IsStatusConditionTrue(status.Conditions, component.ConditionReconciling); got != tc.reconciling {
				t.Errorf("Reconciling %v, want %v", got, tc.reconciling)
			}
			if got := meta.IsStatusConditionTrue(status.Conditions, component.ConditionStalled); got != tc.stall {
				t.Errorf("Stalled %v, want %v", got, tc.stall)
			}
			if status.ObservedGeneration != set.Generation || int(status.Rollout.Clusters) != len(tc.members) {
				t.Errorf("observedGeneration %d, clusters %d", status.ObservedGeneration, status.Rollout.Clusters)
			}
		})
	}
}

func TestClassifyReadsTheComponent(t *testing.T) {
	set := testSet(v1alpha1.Rollout{})
	c := cluster{Name: "a"}
	d, err := desire(set, c)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]state{"ready": stateReady, "failed": stateFailed, "unreachable": stateUnreachable,
		"retrying-with-an-unreachable-message": stateUpdating, "pending": stateUpdating}
	for status, want := range cases {
		if got, _ := classify(testComponent(t, set, c, 1, false, status), d.Hash, testKeys); got != want {
			t.Errorf("%s: %s, want %s", status, got, want)
		}
	}
	stale := testComponent(t, set, c, 1, false, "ready")
	stale.Generation = 4 // written, not reconciled yet
	if got, _ := classify(stale, d.Hash, testKeys); got != stateUpdating {
		t.Errorf("a Component Ready at an older generation: %s, want Updating", got)
	}
	retried := testComponent(t, set, c, 1, false, "failed")
	retried.Spec.Remediation = &component.Remediation{Retries: 2}
	if got, _ := classify(retried, d.Hash, testKeys); got != stateUpdating {
		t.Errorf("a failure with retries left: %s, want Updating", got)
	}
}

func TestRolloutEventsAreBoundedAndSaidOnce(t *testing.T) {
	set := testSet(v1alpha1.Rollout{})
	failed := &member{Cluster: cluster{Name: "a"}, State: stateFailed, Message: strings.Repeat("x", 2000)}
	p := &plan{Wave: 1, Waves: 2, FailedAt: failed}
	var many []string
	for i := range 30 {
		many = append(many, itoa(int64(i)))
	}
	events := rolloutEvents(set, p, many, []string{"gone"}, ReasonProgressing)
	if len(events) != 3 {
		t.Fatalf("%d events, want written, removed and stopped", len(events))
	}
	if !strings.HasSuffix(events[0].Note, "… and 20 more") || events[1].Reason != ReasonClusterRemoved || events[2].Reason != ReasonRolloutStopped {
		t.Errorf("events %+v", events)
	}
	for _, e := range events {
		if len(e.Note) > maxEventNote {
			t.Errorf("a note of %d bytes", len(e.Note))
		}
	}
	if again := rolloutEvents(set, p, nil, nil, ReasonFailed); len(again) != 0 {
		t.Errorf("a pass that finds the rollout stopped again records %+v", again)
	}
}

func TestDeparturesAreNeverASilentReady(t *testing.T) {
	set := testSet(v1alpha1.Rollout{})
	members := []*member{{Cluster: cluster{Name: "a"}, Wave: 1, State: stateReady}}
	leaving := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Name: "web-b"}}
	cases := []struct {
		name       string
		departures []departure
		left       []v1alpha1.LeftCluster
		reason     string
		message    string
		line       string
	}{
		{name: "a cluster leaving holds Ready", departures: []departure{{Cluster: "b", Component: leaving, State: departLeaving, Message: "deleting"}},
			reason: ReasonProgressing, message: "removing 1 cluster that left: b", line: "b (leaving): deleting"},
		{name: "a cluster left behind is named", departures: []departure{{Cluster: "b", Component: leaving, State: departLeftBehind, Message: "has not answered"}},
			reason: ReasonReady, message: "1 of 1 clusters Ready; left behind, being deleted until they answer: b", line: "b (left behind): has not answered"},
		{name: "objects left on a cluster are named", left: []v1alpha1.LeftCluster{{Cluster: "c", Component: "web-c", Reason: "its Secret is gone",
			Objects: []string{"ConfigMap shop/web"}, ObjectCount: 3}},
			reason: ReasonReady, message: "1 of 1 clusters Ready; objects were left on 1 cluster that left: c (status.leftClusters)",
			line: "c (left): 3 objects left on the cluster, not deleted: ConfigMap shop/web … and 2 more (its Secret is gone; its Component web-c was released)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status := v1alpha1.ComponentSetStatus{LeftClusters: tc.left}
			summarize(set, &plan{Members: members, Wave: 1, Waves: 1}, tc.departures, &status)
			ready := meta.FindStatusCondition(status.Conditions, component.ConditionReady)
			if ready.Reason != tc.reason || !strings.Contains(ready.Message, tc.message) {
				t.Errorf("Ready %s %q, want %s with %q", ready.Reason, ready.Message, tc.reason, tc.message)
			}
			if len(status.Clusters) != 2 || status.Clusters[0] != tc.line {
				t.Errorf("lines %q, want %q first", status.Clusters, tc.line)
			}
		})
	}
}

func TestLeftClustersAreRecordedOnceAndBounded(t *testing.T) {
	var status v1alpha1.ComponentSetStatus
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Name: "web-a"}}
	for i := range 12 {
		c.Status.Inventory = append(c.Status.Inventory, manifests.InventoryItem{Version: "v1", Kind: "ConfigMap", Namespace: "shop", Name: itoa(int64(i))})
	}
	c.Status.Inventory = append(c.Status.Inventory, manifests.InventoryItem{Version: "v1", Kind: "Namespace", Name: "shop"})
	left := leftClusterOf("a", c, "gone", time.Now())
	if len(left.Objects) != maxLeftObjects || left.ObjectCount != 13 || left.Objects[0] != "ConfigMap shop/0" {
		t.Errorf("record %+v: want the first %d objects of 13", left, maxLeftObjects)
	}
	if !recordLeft(&status, left) || recordLeft(&status, left) {
		t.Error("the same Component is recorded once")
	}
	for i := range v1alpha1.MaxLeftClusters + 5 {
		recordLeft(&status, v1alpha1.LeftCluster{Cluster: "x" + itoa(int64(i)), Component: "web-x"})
	}
	if len(status.LeftClusters) != v1alpha1.MaxLeftClusters || status.LeftClusters[0].Cluster != "x24" {
		t.Errorf("%d records, the newest %q: want %d, newest first", len(status.LeftClusters), status.LeftClusters[0].Cluster, v1alpha1.MaxLeftClusters)
	}
	forgetRejoined(&status, []*member{{Cluster: cluster{Name: "x24"}}})
	if status.LeftClusters[0].Cluster != "x23" {
		t.Errorf("a cluster selected again keeps its record: %+v", status.LeftClusters[0])
	}
	if got := objectName(c.Status.Inventory[12]); got != "Namespace shop" {
		t.Errorf("a cluster-scoped object is %q", got)
	}
}
