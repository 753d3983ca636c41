package kustomize

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// OutsideSourceError is a build that failed after kustomize looked for a
// path outside the source, such as a base "../base" of a kustomization whose
// source is its own directory: kustomize reads only the source. A source
// whose root holds both (a repository's root for "overlays/prod") reaches it.
type OutsideSourceError struct {
	// Path is the first path outside the source that kustomize looked for,
	// on disk (joined to Source).
	Path string
	// Source is the root directory of the source.
	Source string
	// Err is kustomize's error.
	Err error
}

func (e *OutsideSourceError) Error() string {
	return fmt.Sprintf("%s is outside the source %s: %v", e.Path, e.Source, e.Err)
}

func (e *OutsideSourceError) Unwrap() error { return e.Err }

// watchedFS is the in-memory file system of a build whose source is mounted
// at mount; it notes the paths outside mount that kustomize looked for.
type watchedFS struct {
	filesys.FileSystem
	mount   string
	outside []string
}

func (w *watchedFS) note(p string) {
	if !path.IsAbs(p) {
		return
	}
	p = path.Clean(p)
	if p == w.mount || strings.HasPrefix(p, strings.TrimSuffix(w.mount, "/")+"/") {
		return
	}
	w.outside = append(w.outside, p)
}

func (w *watchedFS) Open(p string) (filesys.File, error) { w.note(p); return w.FileSystem.Open(p) }
func (w *watchedFS) IsDir(p string) bool                 { w.note(p); return w.FileSystem.IsDir(p) }
func (w *watchedFS) Exists(p string) bool                { w.note(p); return w.FileSystem.Exists(p) }
func (w *watchedFS) ReadFile(p string) ([]byte, error)   { w.note(p); return w.FileSystem.ReadFile(p) }
func (w *watchedFS) ReadDir(p string) ([]string, error)  { w.note(p); return w.FileSystem.ReadDir(p) }

func (w *watchedFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	w.note(p)
	return w.FileSystem.CleanedAbs(p)
}

// explain turns a failed build that looked outside the source into an
// OutsideSourceError; source is the source's root on disk ("" for an
// fs.FS, whose mount is "/" and has no outside).
func (w *watchedFS) explain(err error, source string) error {
	if len(w.outside) == 0 || source == "" {
		return err
	}
	rel, relErr := filepath.Rel(filepath.FromSlash(w.mount), filepath.FromSlash(w.outside[0]))
	if relErr != nil {
		return err
	}
	return &OutsideSourceError{Path: filepath.Join(source, rel), Source: source, Err: err}
}

// mountFor is where a source on disk at root is placed in the in-memory
// file system: at its absolute path, so that kustomize's paths outside it
// are the paths on disk. An fs.FS (root "") is placed at "/".
func mountFor(root string) string {
	if root == "" {
		return "/"
	}
	abs, err := filepath.Abs(root)
	if err != nil || !strings.HasPrefix(filepath.ToSlash(abs), "/") {
		return "/"
	}
	return filepath.ToSlash(abs)
}
