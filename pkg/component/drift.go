package component

import (
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ConditionDrifted says, in drift mode Warn, whether applied objects no
// longer hold what was applied: True names the objects and the JSON
// pointers of the fields that differ. Other modes leave it out.
const ConditionDrifted = "Drifted"

// Reasons of the Drifted condition and its Event.
const (
	ReasonDriftDetected = "DriftDetected"
	ReasonNoDrift       = "NoDrift"
)

// driftMessageLimit bounds the Drifted condition's message: the first
// objects with their paths, then "… and N more".
const driftMessageLimit = 4096

// DriftConfiguration says how changes that others make to the component's
// objects are treated (manifests.DriftSettings: mode and ignore rules).
type DriftConfiguration interface {
	GetDrift() manifests.DriftSettings
}
