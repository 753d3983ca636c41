// Package agents holds wavekit agent: run is the pull-mode agent of a
// member cluster (internal/agent), which only dials out to the hub;
// register is the hub's side of a new pulled cluster (its namespace,
// identity and cluster Secret on the hub) and writes the kubeconfig its
// agent reaches the hub with.
package agents
