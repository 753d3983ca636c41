package fleet

import (
	"testing"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// TestClusterLinesReadBack: what clusterLines writes of a member,
// ParseClusterLine reads back; the lines of departures and left clusters
// are no member's.
func TestClusterLinesReadBack(t *testing.T) {
	members := []*member{
		{Cluster: cluster{Name: "p1"}, Wave: 2, State: stateUnreachable, Message: "the cluster's agent has not renewed its Lease wavekit-agent since 2026-11-27T17:00:00Z: late"},
		{Cluster: cluster{Name: "c3"}, Wave: 1, State: stateReady},
	}
	departures := []departure{{Cluster: "gone", State: departLeaving, Message: "its agent is asked to delete Component web-gone"}}
	left := []v1alpha1.LeftCluster{{Cluster: "old", Component: "web-old", Reason: "its kubeconfig Secret is gone"}}
	want := map[string]v1alpha1.ClusterLine{
		"p1": {Cluster: "p1", Wave: 2, State: "Unreachable", Message: members[0].Message},
		"c3": {Cluster: "c3", Wave: 1, State: "Ready"},
	}
	got := map[string]v1alpha1.ClusterLine{}
	for _, line := range clusterLines(members, departures, left) {
		if l, ok := v1alpha1.ParseClusterLine(line); ok {
			got[l.Cluster] = l
		}
	}
	if len(got) != len(want) {
		t.Fatalf("read %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("cluster %s: read %+v, want %+v", name, got[name], w)
		}
	}
	if !got["p1"].Unreachable() || got["c3"].Unreachable() || !got["c3"].Placed() {
		t.Errorf("Unreachable or Placed wrong: %+v", got)
	}
}
