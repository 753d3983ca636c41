package fleet

import (
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

func TestWorkNamespaceIsNotShared(t *testing.T) {
	a, b := WorkNamespace("a-b", "c"), WorkNamespace("a", "b-c")
	if a == b {
		t.Fatalf("namespaces a-b/c and a/b-c share %s", a)
	}
	long := WorkNamespace("team-with-a-rather-long-namespace-name", "cluster-with-an-even-longer-name-than-that")
	if len(long) > 63 {
		t.Errorf("%s is longer than 63 characters", long)
	}
}

// TestViewOfASilentAgent: a Lease that ran out, or none, makes the view
// unreachable by its reason, as a pushed cluster that does not answer.
func TestViewOfASilentAgent(t *testing.T) {
	k := keysFor("wavekit.dev")
	now := time.Now()
	w := &v1alpha1.ComponentWork{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "web", Generation: 2,
		Annotations: map[string]string{k.specHash: "h"}}}
	w.Status.ObservedGeneration = 2
	w.Status.Conditions = []metav1.Condition{{Type: component.ConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: 2, Reason: "Ready"}}
	lease := func(renewed time.Time) *coordinationv1.Lease {
		return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To(int32(10)),
			RenewTime: &metav1.MicroTime{Time: renewed}}}
	}
	if s, _ := classify(viewOf(w, lease(now), now, k), "h", k); s != stateReady {
		t.Errorf("a live agent's Ready work: %s, want Ready", s)
	}
	for name, l := range map[string]*coordinationv1.Lease{"ran out": lease(now.Add(-11 * time.Second)), "none": nil} {
		if s, _ := classify(viewOf(w, l, now, k), "h", k); s != stateUnreachable {
			t.Errorf("a Lease that %s: %s, want Unreachable", name, s)
		}
	}
}

// TestASilentAgentRaisesTheUnreachableAlert: a pulled cluster whose
// agent's Lease ran out goes through the plan as a pushed cluster that
// does not answer, and into the same ClusterUnreachable alert.
func TestASilentAgentRaisesTheUnreachableAlert(t *testing.T) {
	set := testSet(v1alpha1.Rollout{})
	clusters := testClusters("", "")
	now := time.Now()
	d, err := desire(set, clusters[1])
	if err != nil {
		t.Fatal(err)
	}
	w := &v1alpha1.ComponentWork{ObjectMeta: metav1.ObjectMeta{Namespace: WorkNamespace(set.Namespace, clusters[1].Name), Name: set.Name, Generation: 3,
		Annotations: map[string]string{testKeys.specHash: d.Hash, testKeys.wave: "1", testKeys.clusterName: clusters[1].Name}}}
	w.Status.ObservedGeneration = 3
	w.Status.Conditions = []metav1.Condition{{Type: component.ConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: 3, Reason: "Ready"}}
	silent := &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To(int32(40)),
		RenewTime: &metav1.MicroTime{Time: now.Add(-time.Minute)}}}
	owned := map[string]*v1alpha1.Component{
		clusters[0].Name: testComponent(t, set, clusters[0], 1, false, "unreachable"),
		clusters[1].Name: viewOf(w, silent, now, testKeys),
	}
	p, err := makePlan(set, clusters, owned, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	unreachable := unreachableClusters(p)
	if len(unreachable) != 2 {
		t.Fatalf("unreachable clusters %v, want the pushed and the pulled one", unreachable)
	}
	set.Status.Rollout = rolloutOf(p)
	alerts := setAlerts(set, &v1alpha1.ComponentSetStatus{}, unreachable)
	if len(alerts) != 1 || alerts[0].kind != notify.KindClusterUnreachable || !strings.Contains(alerts[0].message, "2 clusters of 2 do not answer: a, b") {
		t.Errorf("alerts %+v, want one ClusterUnreachable naming a and b", alerts)
	}
}
