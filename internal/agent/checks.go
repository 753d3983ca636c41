package agent

import (
	"errors"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/healthz"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/operator"
)

// addChecks serves the agent's /healthz (the process answers) and /readyz
// on Options.ProbeAddr: ready once it has listed this cluster's
// Components and its works on the hub, and its workers are not stuck. An
// agent cut off from the hub after that stays ready: it keeps its cluster
// as last applied, and a restart would not bring the hub back.
func addChecks(mgr ctrl.Manager, hub cluster.Cluster, workers healthz.Checker) error {
	return errors.Join(
		mgr.AddHealthzCheck("ping", healthz.Ping),
		mgr.AddReadyzCheck("components", operator.CacheSynced(mgr.GetCache(), &v1alpha1.Component{})),
		mgr.AddReadyzCheck("works", operator.CacheSynced(hub.GetCache(), &v1alpha1.ComponentWork{})),
		mgr.AddReadyzCheck("workers", workers),
	)
}
