//go:build wavekit_plant

package engine

import (
	"os"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/live"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/runonce"
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

// plantedEnds returns next, as a cache transform, preceded by recording
// the run-once objects that complete, when plantRunOnceByName is planted.
func plantedEnds(next toolscache.TransformFunc) toolscache.TransformFunc {
	if !planted(plantRunOnceByName) {
		return next
	}
	return func(obj any) (any, error) {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			notePlantedEnd(u)
		}
		return next(obj)
	}
}

// notePlantedEnd records that a run-once object of u's name completed.
func notePlantedEnd(u *unstructured.Unstructured) {
	if !runonce.RunsOnce(u.GroupVersionKind()) {
		return
	}
	if phase, _ := runonce.EndOf(u); phase == manifests.PhaseCompleted && u.GetUID() != "" {
		completedNames.Store(live.KeyOf(u), struct{}{})
	}
}

// judgedByName is the planted bug plantRunOnceByName: a run-once object
// that ran at this render counts as done once any object of its name
// completed, whatever its UID and whether this one runs.
func judgedByName(d *plan.Desired, item *manifests.InventoryItem) (plan.Outcome, bool) {
	if !planted(plantRunOnceByName) || !plan.RanAt(d, item) || item.Phase == manifests.PhaseError {
		return plan.Outcome{}, false
	}
	if _, ok := completedNames.Load(d.Key); !ok {
		return plan.Outcome{}, false
	}
	return plan.Outcome{Key: d.Key, Phase: manifests.PhaseCompleted, Status: "", SetStatus: true}, true
}
