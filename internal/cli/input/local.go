package input

import (
	"os"
	"path/filepath"
)

// Local is a source on local disk, ready to load: a directory SOURCE names,
// or what a command fetched for it.
type Local struct {
	// Dir is the directory to render.
	Dir string
	// Root is what the file:// dependencies of a chart in Dir must stay
	// inside: the checkout of a Git SOURCE, the chart itself when it
	// comes from a repository; "" for a directory of the user's (then
	// SourceRoot decides).
	Root string
	// RootIs says what Root is, for messages ("the checkout of the Git
	// SOURCE").
	RootIs string
	// Recorded is what a release records as its source.
	Recorded string
	// Verified says the source itself was verified by --verify (a chart of
	// --repo or oci://).
	Verified bool
	// Cleanup removes what was fetched; never nil.
	Cleanup func()
}

// LocalDir is the directory dir of the user's, as SOURCE names it.
func LocalDir(dir string) Local {
	return Local{Dir: dir, Recorded: AbsPath(dir), Cleanup: func() {}}
}

// root is what the file:// dependencies of a chart in l.Dir must stay
// inside, and what it is, for messages.
func (l Local) root() (dir, is string) {
	if l.Root != "" {
		return l.Root, l.RootIs
	}
	return SourceRoot(l.Dir), "the Git work tree of the chart"
}

// SourceRoot is what the file:// dependencies of a chart in the user's
// directory dir may reach: the Git work tree dir is in (the innermost
// directory at or above it, links followed, that holds a .git directory
// or file: a submodule's own), which is what the operator's spec.git
// checks out, so a chart that renders here renders there. Outside a Git
// work tree nothing says where the source ends, and the CLI bounds
// nothing, as Helm does: the filesystem's root.
func SourceRoot(dir string) string {
	abs := AbsPath(dir)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return filepath.VolumeName(abs) + string(filepath.Separator)
		}
	}
}
