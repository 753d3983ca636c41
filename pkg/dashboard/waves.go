package dashboard

import (
	"sort"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// wave is the objects and external dependents of one apply order.
type wave struct {
	Order   int16
	Objects []waveMember
}

// waveMember is an object of the inventory or a dependent outside
// Kubernetes, as far as its wave is concerned.
type waveMember struct {
	Kind      string
	Namespace string
	Name      string
	Phase     manifests.Phase
	Status    string
	// External is set for a dependent outside Kubernetes (status.externals).
	External bool
	// Command shows the object; empty for an external dependent.
	Command string
}

// done tells whether every member of the wave is ready.
func (w wave) done() bool {
	for _, m := range w.Objects {
		if !phaseReady(m.Phase) {
			return false
		}
	}
	return true
}

// phaseReady tells whether a member in this phase counts as done for its
// wave.
func phaseReady(phase manifests.Phase) bool {
	switch phase {
	case manifests.PhaseReady, manifests.PhaseCompleted, manifests.PhaseOrphaned:
		return true
	}
	return false
}

// inventoryMember is an object of the inventory in its wave.
func inventoryMember(item manifests.InventoryItem) waveMember {
	return waveMember{Kind: item.Kind, Namespace: item.Namespace, Name: item.Name, Phase: item.Phase,
		Status: item.Status, Command: objectCommand(item)}
}

// buildWaves groups the objects that are applied (not delete hooks or
// tests) and the external dependents by apply order, in order.
func buildWaves(items []manifests.InventoryItem, externals []manifests.ExternalItem) []wave {
	byOrder := map[int16][]waveMember{}
	for _, item := range items {
		if item.DeleteHook == "" && item.TestHook == "" {
			byOrder[item.ApplyOrder] = append(byOrder[item.ApplyOrder], inventoryMember(item))
		}
	}
	for _, e := range externals {
		byOrder[e.ApplyOrder] = append(byOrder[e.ApplyOrder],
			waveMember{Kind: e.Kind, Name: e.Name, Phase: e.Phase, Status: e.Status, External: true})
	}
	waves := make([]wave, 0, len(byOrder))
	for order, members := range byOrder {
		waves = append(waves, wave{Order: order, Objects: members})
	}
	sort.Slice(waves, func(i, j int) bool { return waves[i].Order < waves[j].Order })
	return waves
}

// specialItems returns the delete hooks or the tests of an inventory.
func specialItems(items []manifests.InventoryItem, tests bool) []waveMember {
	var out []waveMember
	for _, item := range items {
		if (tests && item.TestHook != "") || (!tests && item.DeleteHook != "") {
			out = append(out, inventoryMember(item))
		}
	}
	return out
}
