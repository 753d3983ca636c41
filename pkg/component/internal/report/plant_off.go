//go:build !wavekit_plant

package report

// planted is false: a binary built without the build tag wavekit_plant
// carries no planted bug, and the compiler folds the branches it guards
// away (plant_on.go).
func planted(string) bool { return false }
