package version

import (
	"runtime/debug"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// Development is the version of a build that carries no valid version.
const Development = "v0.0.0"

// stamped is set at link time with -X; empty in a plain go build.
var stamped string

// String returns the binary's version: the stamped one, else the main
// module's version from the build info, else Development.
func String() string {
	if semver.IsValid(stamped) {
		return stamped
	}
	if info, ok := debug.ReadBuildInfo(); ok && semver.IsValid(info.Main.Version) {
		return info.Main.Version
	}
	return Development
}

// IsRelease tells whether v names a published release: a valid semantic
// version that is not v0.0.0, not a pseudo-version (a commit that was never
// tagged) and carries no build metadata such as "+dirty".
func IsRelease(v string) bool {
	return semver.IsValid(v) && v != Development && !module.IsPseudoVersion(v) && !strings.Contains(v, "+")
}
