package fleet

import (
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// maxLeftObjects bounds the objects a status.leftClusters entry names.
const maxLeftObjects = 10

// leftClusterOf is the record of cluster, whose Component c the set
// released without deleting its objects, for why.
func leftClusterOf(cluster string, c *v1alpha1.Component, why string, now time.Time) v1alpha1.LeftCluster {
	inventory := c.Status.Inventory
	objects := make([]string, 0, min(len(inventory), maxLeftObjects))
	for _, item := range inventory[:min(len(inventory), maxLeftObjects)] {
		objects = append(objects, objectName(item))
	}
	return v1alpha1.LeftCluster{Cluster: cluster, Component: c.Name, Time: metav1.NewTime(now.UTC().Truncate(time.Second)),
		Reason: bound(why, 1024), Objects: objects, ObjectCount: int32(len(inventory))}
}

// objectName is "Kind namespace/name", or "Kind name" for a cluster-scoped
// object.
func objectName(item manifests.InventoryItem) string {
	if item.Namespace == "" {
		return item.Kind + " " + item.Name
	}
	return item.Kind + " " + item.Namespace + "/" + item.Name
}

// recordLeft puts left first in status.leftClusters, in place of an older
// entry of the same cluster, at most v1alpha1.MaxLeftClusters; false when
// it is there already (the same Component released before).
func recordLeft(status *v1alpha1.ComponentSetStatus, left v1alpha1.LeftCluster) bool {
	i := slices.IndexFunc(status.LeftClusters, func(l v1alpha1.LeftCluster) bool { return l.Cluster == left.Cluster })
	if i >= 0 && status.LeftClusters[i].Component == left.Component {
		return false
	}
	if i >= 0 {
		status.LeftClusters = slices.Delete(status.LeftClusters, i, i+1)
	}
	status.LeftClusters = slices.Insert(status.LeftClusters, 0, left)
	status.LeftClusters = status.LeftClusters[:min(len(status.LeftClusters), v1alpha1.MaxLeftClusters)]
	return true
}

// forgetRejoined drops the entries of status.leftClusters whose cluster the
// set selects again: its new Component manages what is there.
func forgetRejoined(status *v1alpha1.ComponentSetStatus, members []*member) {
	selected := map[string]bool{}
	for _, m := range members {
		selected[m.Cluster.Name] = true
	}
	status.LeftClusters = slices.DeleteFunc(status.LeftClusters, func(l v1alpha1.LeftCluster) bool { return selected[l.Cluster] })
	if len(status.LeftClusters) == 0 {
		status.LeftClusters = nil
	}
}

// leftLine is the status line of a cluster that left objects behind.
func leftLine(l v1alpha1.LeftCluster) string {
	return fmt.Sprintf("%s (left): %s left on the cluster, not deleted: %s (%s; its Component %s was released)",
		l.Cluster, objectCount(l.ObjectCount), leftObjects(l), l.Reason, l.Component)
}

// leftObjects lists the objects of l, and how many more there are.
func leftObjects(l v1alpha1.LeftCluster) string {
	list := strings.Join(l.Objects, ", ")
	if more := int(l.ObjectCount) - len(l.Objects); more > 0 {
		list += fmt.Sprintf(" … and %d more", more)
	}
	return list
}

// objectCount is "1 object" or "n objects".
func objectCount(n int32) string { return count(int(n), "object") }

// count is "1 thing" or "n things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
