package invariants

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/wavekit-dev/wavekit/internal/testing/history"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// WriteAhead checks that every object the operator created in the cluster
// of the Components was listed in its Component's inventory by a status
// written before it (DESIGN: "The inventory is written before an object is
// created, so a crash never leaves an object that nothing tracks"). Objects
// in other clusters are not judged: their versions do not order against the
// Components'.
func WriteAhead(events []history.Event, f Facts) []Violation {
	components := f.componentsByOwner(events)
	var out []Violation
	for _, e := range events {
		owner := f.ownerOf(e.Object)
		if e.Type != history.Added || owner == "" || e.Cluster != f.ComponentCluster {
			continue
		}
		c, ok := components[owner]
		if !ok {
			out = append(out, Violation{Invariant: "write-ahead", Object: e.Key(), At: e.At,
				Message: fmt.Sprintf("created at version %d with owner %s, which no Component of the history has", e.RV, owner)})
			continue
		}
		if listed, since := c.listedBefore(objectKey(e), e.RV); !listed && !f.inGap(e.Cluster, "Component", since, e.RV) {
			out = append(out, Violation{Invariant: "write-ahead", Object: e.Key(), At: e.At,
				Message: fmt.Sprintf("created at version %d before %s listed it in its inventory", e.RV, c.name)})
		}
	}
	return out
}

// objectKey is the inventory key of the object of e.
func objectKey(e history.Event) manifests.ObjectKey {
	gv, _ := schema.ParseGroupVersion(e.Object.GetAPIVersion())
	return manifests.ObjectKey{Group: gv.Group, Kind: e.Object.GetKind(), Namespace: e.Object.GetNamespace(), Name: e.Object.GetName()}
}

// componentHistory is the recorded states of one Component: its name in
// words and, by version, the keys its inventory listed.
type componentHistory struct {
	name      string
	inventory []listedAt
}

type listedAt struct {
	rv   uint64
	keys map[manifests.ObjectKey]bool
}

// componentsByOwner groups the Components' events by their owner label value.
func (f Facts) componentsByOwner(events []history.Event) map[string]*componentHistory {
	out := map[string]*componentHistory{}
	for _, e := range events {
		if e.Kind != "Component" || e.Cluster != f.ComponentCluster {
			continue
		}
		gv, _ := schema.ParseGroupVersion(e.Object.GetAPIVersion())
		id := manifests.OwnerID(gv.Group, "Component", e.Object.GetNamespace(), e.Object.GetName())
		if out[id] == nil {
			out[id] = &componentHistory{name: "Component " + e.Object.GetNamespace() + "/" + e.Object.GetName()}
		}
		out[id].inventory = append(out[id].inventory, listedAt{rv: e.RV, keys: inventoryKeys(e)})
	}
	return out
}

// inventoryKeys are the keys of the objects the Component of e tracks: its
// status.inventory, and the Secrets of its dependents outside the cluster
// (status.externals[].secretName), which it records before it writes them.
func inventoryKeys(e history.Event) map[manifests.ObjectKey]bool {
	keys := map[manifests.ObjectKey]bool{}
	status, _ := e.Object.Object["status"].(map[string]any)
	items, _ := status["inventory"].([]any)
	for _, item := range items {
		m, _ := item.(map[string]any)
		keys[manifests.ObjectKey{Group: str(m, "group"), Kind: str(m, "kind"), Namespace: str(m, "namespace"), Name: str(m, "name")}] = true
	}
	externals, _ := status["externals"].([]any)
	for _, item := range externals {
		if name := str(item.(map[string]any), "secretName"); name != "" {
			keys[manifests.ObjectKey{Kind: "Secret", Namespace: e.Object.GetNamespace(), Name: name}] = true
		}
	}
	return keys
}

// listedBefore tells whether a state of the component before version rv
// listed key in its inventory; when none did, since is the version of the
// last state before rv (0 for none), after which the listing was due.
func (c *componentHistory) listedBefore(key manifests.ObjectKey, rv uint64) (listed bool, since uint64) {
	for _, l := range c.inventory {
		if l.rv >= rv {
			break
		}
		if l.keys[key] {
			return true, 0
		}
		since = l.rv
	}
	return false, since
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
