package main

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/internal/agent/approve"
)

// setupAgentApprover runs the approver of pulled clusters' agents'
// certificates beside the ComponentSet controller, which the agents work
// for (internal/agent/approve; off without its rights).
func setupAgentApprover(mgr ctrl.Manager, name string) error {
	return approve.Setup(mgr, name)
}
