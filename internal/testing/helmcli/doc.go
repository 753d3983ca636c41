// Package helmcli builds the helm CLI from the Helm module wavekit
// requires and runs it apart from the user's configuration (its own
// config, cache and data directories): the oracle of the tests that
// compare wavekit's renders and dependency resolution with Helm's.
package helmcli
