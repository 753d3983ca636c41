package engine

import (
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/live"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The planted bugs of this package (plant_on.go): the soak's
// internal/plant names them too.
const (
	// plantRunOnceByName judges a run-once object (a hook Job) that ran at
	// this render by its name: done once any Job of that name completed.
	plantRunOnceByName = "runonce-by-name"
	// plantIgnoreWaveReadiness starts the next wave without waiting for
	// the objects of the current one to be ready.
	plantIgnoreWaveReadiness = "ignore-wave-readiness"
)

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
