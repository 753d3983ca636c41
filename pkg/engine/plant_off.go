//go:build !wavekit_plant

package engine

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// planted is false: a binary built without the build tag wavekit_plant
// carries no planted bug, and the compiler folds the branches it guards
// away (plant_on.go).
func planted(string) bool { return false }

// notePlantedEnd does nothing: no bug is planted.
func notePlantedEnd(*unstructured.Unstructured) {}

// judgedByName judges nothing: no bug is planted.
func judgedByName(*desired, *manifests.InventoryItem) (outcome, bool) { return outcome{}, false }
