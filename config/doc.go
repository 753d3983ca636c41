// Package config holds the reference operator's Helm chart (config/chart),
// embedded so that `wavekit cluster create --operator` installs its CRD and
// RBAC as the chart does, from any directory.
package config
