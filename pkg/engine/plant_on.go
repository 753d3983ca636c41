//go:build wavekit_plant

package engine

import (
	"os"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/live"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// planted tells whether $WAVEKIT_PLANT, a comma-separated list, names
// bug: the seam by which test/robustness plants known bugs (its
// internal/plant names them) in a binary built with wavekit_plant, to show
// that its checker catches each. Nothing of product code imports it.
func planted(bug string) bool {
	return slices.Contains(strings.Split(strings.ReplaceAll(os.Getenv("WAVEKIT_PLANT"), " ", ""), ","), bug)
}

// completedNames are the run-once objects, by name, that a cache saw
// complete at any time: what the planted bug plantRunOnceByName judges
// by. Only a binary built with wavekit_plant writes or reads it.
var completedNames sync.Map // manifests.ObjectKey -> struct{}

// notePlantedEnd records that a run-once object of u's name completed.
func notePlantedEnd(u *unstructured.Unstructured) {
	if !runsOnce(u.GroupVersionKind()) {
		return
	}
	if phase, _ := endOf(u); phase == manifests.PhaseCompleted && u.GetUID() != "" {
		completedNames.Store(live.KeyOf(u), struct{}{})
	}
}

// judgedByName is the planted bug plantRunOnceByName: a run-once object
// that ran at this render counts as done once any object of its name
// completed, whatever its UID and whether this one runs.
func judgedByName(d *desired, item *manifests.InventoryItem) (outcome, bool) {
	if !planted(plantRunOnceByName) || !ranAt(d, item) || item.Phase == manifests.PhaseError {
		return outcome{}, false
	}
	if _, ok := completedNames.Load(d.key); !ok {
		return outcome{}, false
	}
	return outcome{key: d.key, phase: manifests.PhaseCompleted, status: "", setStatus: true}, true
}
