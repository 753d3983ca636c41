// Package plant holds the known bugs that test/robustness plants in the
// reference operator to show that its checker catches each of them.
//
// Only a binary built with the build tag wavekit_plant can carry them, and
// only the bugs its environment variable WAVEKIT_PLANT names (a
// comma-separated list of Bug values) are active. Without the tag, Active
// is a constant false, which the compiler folds away with the branches it
// guards: no production binary carries a planted bug.
package plant
