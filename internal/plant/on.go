//go:build wavekit_plant

package plant

import (
	"os"
	"slices"
	"strings"
	"sync"
)

// active are the bugs EnvVar names, read once.
var active = sync.OnceValue(func() []Bug {
	var out []Bug
	for _, name := range strings.Split(os.Getenv(EnvVar), ",") {
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, Bug(name))
		}
	}
	return out
})

// Active tells whether EnvVar names bug.
func Active(bug Bug) bool { return slices.Contains(active(), bug) }
