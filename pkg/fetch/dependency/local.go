package dependency

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// local loads the chart directory of a file:// dependency: relative to
// the chart that lists it, inside n.root once links are followed, named
// as the entry names it, at a version its range allows.
func (w *walk) local(n node, d *chart.Dependency, ref reference, version string) (brought, error) {
	fail := func(reason string) (brought, error) {
		return brought{}, &LocalPathError{Dependency: dependencyPath(n, d), Repository: ref.raw, Reason: reason}
	}
	if n.dir == "" {
		return fail("cannot be read: the chart that lists it is not a directory on disk")
	}
	dir, reason := insideRoot(n.dir, n.root, ref.value)
	if reason != "" {
		return fail(reason)
	}
	ch, err := loader.LoadDir(dir)
	if err != nil {
		return fail(fmt.Sprintf("holds no chart: %v", err))
	}
	if ch.Name() != d.Name {
		return fail(fmt.Sprintf("holds chart %s, not %s", ch.Name(), d.Name))
	}
	if reason := versionReason(version, ch.Metadata.Version); reason != "" {
		return fail(reason)
	}
	at := place{dir: dir, root: n.root}
	return brought{chart: ch, at: at, resolved: Resolved{Path: resolvedPath(n, d), Name: d.Name, Repository: ref.raw, Version: ch.Metadata.Version}}, nil
}

// insideRoot returns the directory path names relative to dir, with its
// links followed, or why it is refused: it leaves root, or is not a
// directory.
func insideRoot(dir, root, path string) (string, string) {
	target := filepath.FromSlash(path)
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	real, err := absolute(target)
	if err != nil {
		return "", "is not there"
	}
	realRoot, err := absolute(root)
	if err != nil {
		return "", fmt.Sprintf("cannot be read: %v", err)
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "leaves the source it comes with: file:// dependencies must stay inside the repository or folder of the chart"
	}
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		return "", "is not a directory"
	}
	return real, ""
}

// versionReason says why version does not satisfy constraint, or "".
func versionReason(constraint, version string) string {
	if constraint == "" {
		return ""
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return fmt.Sprintf("invalid version range %q: %v", constraint, err)
	}
	v, err := semver.NewVersion(version)
	if err != nil {
		return fmt.Sprintf("holds version %q, which is not a semantic version", version)
	}
	if !c.Check(v) {
		return fmt.Sprintf("holds version %s, which %q does not allow", version, constraint)
	}
	return ""
}

// absolute is path made absolute, its links followed.
func absolute(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}
