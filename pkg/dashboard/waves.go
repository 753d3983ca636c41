package dashboard

import (
	"sort"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// wave is the objects of one apply order.
type wave struct {
	Order   int16
	Objects []manifests.InventoryItem
}

// done tells whether every object of the wave is ready.
func (w wave) done() bool {
	for _, item := range w.Objects {
		if !itemReady(item) {
			return false
		}
	}
	return true
}

// holding returns the objects that are not ready yet.
func (w wave) holding() []manifests.InventoryItem {
	var out []manifests.InventoryItem
	for _, item := range w.Objects {
		if !itemReady(item) {
			out = append(out, item)
		}
	}
	return out
}

// itemReady tells whether an object counts as done for its wave.
func itemReady(item manifests.InventoryItem) bool {
	switch item.Phase {
	case manifests.PhaseReady, manifests.PhaseCompleted, manifests.PhaseOrphaned:
		return true
	}
	return false
}

// buildWaves groups the objects that are applied (not delete hooks or
// tests) by apply order, in order.
func buildWaves(items []manifests.InventoryItem) []wave {
	byOrder := map[int16][]manifests.InventoryItem{}
	for _, item := range items {
		if item.DeleteHook != "" || item.TestHook != "" {
			continue
		}
		byOrder[item.ApplyOrder] = append(byOrder[item.ApplyOrder], item)
	}
	waves := make([]wave, 0, len(byOrder))
	for order, objects := range byOrder {
		waves = append(waves, wave{Order: order, Objects: objects})
	}
	sort.Slice(waves, func(i, j int) bool { return waves[i].Order < waves[j].Order })
	return waves
}

// specialItems returns the delete hooks or the tests of an inventory.
func specialItems(items []manifests.InventoryItem, tests bool) []manifests.InventoryItem {
	var out []manifests.InventoryItem
	for _, item := range items {
		if (tests && item.TestHook != "") || (!tests && item.DeleteHook != "") {
			out = append(out, item)
		}
	}
	return out
}
