//go:build !wavekit_plant

package engine

import (
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	toolscache "k8s.io/client-go/tools/cache"
)

// planted is false: a binary built without the build tag wavekit_plant
// carries no planted bug, and the compiler folds the branches it guards
// away (plant_on.go).
func planted(string) bool { return false }

// plantedEnds is next: no bug is planted.
func plantedEnds(next toolscache.TransformFunc) toolscache.TransformFunc { return next }

// judgedByName judges nothing: no bug is planted.
func judgedByName(*plan.Desired, *manifests.InventoryItem) (plan.Outcome, bool) {
	return plan.Outcome{}, false
}
