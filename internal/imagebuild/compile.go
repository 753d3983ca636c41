package imagebuild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Package is the operator's main package, relative to the module root.
const Package = "./cmd/component-operator"

// versionVar is the link-time variable that carries the version.
const versionVar = "github.com/wavekit-dev/wavekit/internal/version.stamped"

// LDFlags are the linker flags of a release build of version: no symbol
// table and no DWARF (-s -w), and the version stamped into internal/version.
func LDFlags(version string) string {
	return "-s -w -X " + versionVar + "=" + version
}

// BuildFlags are the go build flags of a release build of version:
// -trimpath, so that the binary does not depend on where it was built, and
// LDFlags.
func BuildFlags(version string) []string {
	return []string{"-trimpath", "-ldflags", LDFlags(version)}
}

// Compile builds the main package pkg (Package: the operator) for platform
// into out, statically (CGO_ENABLED=0), with BuildFlags(version), from the
// module at moduleDir.
func Compile(ctx context.Context, moduleDir, pkg, version string, platform v1.Platform, out string) error {
	args := append([]string{"build"}, BuildFlags(version)...)
	args = append(args, "-o", out, pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+platform.OS, "GOARCH="+platform.Architecture)
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s for %s: %w\n%s", pkg, platform, err, strings.TrimSpace(string(output)))
	}
	return nil
}
