//go:build !wavekit_plant

package plant

// Active is false: a binary built without wavekit_plant carries no bug.
func Active(Bug) bool { return false }
