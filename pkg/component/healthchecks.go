package component

import "github.com/wavekit-dev/wavekit/pkg/manifests"

// HealthCheckConfiguration gives CEL health checks for kinds whose status
// kstatus cannot read (manifests.HealthCheck). They judge the component's
// objects wave by wave: the next wave starts only when every object of a
// wave is Current by its check. A check that does not compile makes the
// component Stalled at once, with the compile error, before any write.
type HealthCheckConfiguration interface {
	GetHealthChecks() []manifests.HealthCheck
}
