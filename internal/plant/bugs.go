package plant

// Bug names one planted bug.
type Bug string

// The bugs the soak's checker must catch, by the names the seams of
// pkg/engine and pkg/component/internal/report check.
const (
	// RunOnceByName judges a run-once object (a hook Job) that ran at this
	// render by its name: done once any Job of that name completed,
	// whatever its UID, even while the one of this render runs. The
	// previous render's Complete ends this one, as in the bug of issue 67,
	// without the cache lag that bug needed.
	RunOnceByName Bug = "runonce-by-name"
	// SkipWriteAhead creates new objects without recording them in the
	// inventory first.
	SkipWriteAhead Bug = "skip-write-ahead"
	// IgnoreWaveReadiness starts the next wave without waiting for the
	// objects of the current one to be ready.
	IgnoreWaveReadiness Bug = "ignore-wave-readiness"
)

// EnvVar names the active bugs of a binary built with wavekit_plant.
const EnvVar = "WAVEKIT_PLANT"

// BuildTag is the build tag that lets a binary carry planted bugs.
const BuildTag = "wavekit_plant"
