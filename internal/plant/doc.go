// Package plant names the known bugs that test/robustness plants in the
// reference operator to show that its checker catches each of them.
//
// Product code does not import it: each package that can carry a bug has
// a seam of its own, a function planted(bug) in two files chosen by the
// build tag wavekit_plant (pkg/engine and pkg/component/internal/report,
// plant_on.go and plant_off.go). Only a binary built with the tag can carry
// a bug, and only the bugs its environment variable WAVEKIT_PLANT names (a
// comma-separated list of Bug values) are active. Without the tag, planted
// is a constant false, which the compiler folds away with the branches it
// guards: no production binary carries a planted bug.
package plant
