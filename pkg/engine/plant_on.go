//go:build wavekit_plant

package engine

import (
	"os"
	"slices"
	"strings"
)

// planted tells whether $WAVEKIT_PLANT, a comma-separated list, names
// bug: the seam by which test/robustness plants known bugs (its
// internal/plant names them) in a binary built with wavekit_plant, to show
// that its checker catches each. Nothing of product code imports it.
func planted(bug string) bool {
	return slices.Contains(strings.Split(strings.ReplaceAll(os.Getenv("WAVEKIT_PLANT"), " ", ""), ","), bug)
}
