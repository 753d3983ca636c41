package gitinputs

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gobwas/glob"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/inputs"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

// Bounds of a read.
const (
	maxInputs    = 1000
	maxFileBytes = 1 << 20
	// maxReadBytes bounds the files of one read together, which the
	// operator holds parsed.
	maxReadBytes = 16 << 20
)

// directories are the directories of tree matching one of paths and none
// of exclude, each an input.
func directories(tree git.Tree, paths, exclude []string) ([]inputs.Input, error) {
	include, err := compile(paths)
	if err != nil {
		return nil, err
	}
	skip, err := compile(exclude)
	if err != nil {
		return nil, err
	}
	var out []inputs.Input
	err = walk(tree.Dir, func(rel string, d fs.DirEntry) error {
		if !d.IsDir() || !matches(include, rel) || matches(skip, rel) {
			return nil
		}
		if len(out) == maxInputs {
			return fmt.Errorf("more than %d directories match at %s", maxInputs, tree.Revision)
		}
		id := strings.ReplaceAll(rel, "/", "-")
		out = append(out, inputs.Input{ID: id, Fields: map[string]any{"id": id, "path": rel, "name": path.Base(rel), "revision": tree.Revision}})
		return nil
	})
	return out, err
}

// files are the inputs of tree's files matching one of paths.
func files(tree git.Tree, paths []string) ([]inputs.Input, error) {
	include, err := compile(paths)
	if err != nil {
		return nil, err
	}
	var out []inputs.Input
	total := int64(0)
	err = walk(tree.Dir, func(rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !matches(include, rel) {
			return nil
		}
		if info, err := d.Info(); err == nil {
			if total += info.Size(); total > maxReadBytes {
				return fmt.Errorf("the files matched at %s are larger than %d MiB together", tree.Revision, maxReadBytes>>20)
			}
		}
		read, err := fileInputs(tree, rel)
		if err != nil {
			return err
		}
		if out = append(out, read...); len(out) > maxInputs {
			return fmt.Errorf("the files give more than %d inputs at %s", maxInputs, tree.Revision)
		}
		return nil
	})
	return out, err
}

// fileInputs reads one file: an object is an input, a list one per entry.
func fileInputs(tree git.Tree, rel string) ([]inputs.Input, error) {
	full := filepath.Join(tree.Dir, filepath.FromSlash(rel))
	info, err := os.Stat(full)
	if err != nil {
		return nil, err
	}
	if info.Size() > maxFileBytes {
		return nil, fmt.Errorf("%s at %s is larger than %d MiB", rel, tree.Revision, maxFileBytes>>20)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s at %s: %w", rel, tree.Revision, err)
	}
	base := strings.ReplaceAll(strings.TrimSuffix(rel, path.Ext(rel)), "/", "-")
	switch d := doc.(type) {
	case map[string]any:
		in, err := entry(d, base, rel, tree.Revision)
		return []inputs.Input{in}, err
	case []any:
		out := make([]inputs.Input, 0, len(d))
		for i, e := range d {
			fields, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s at %s: entry %d is not an object", rel, tree.Revision, i)
			}
			in, err := entry(fields, base+"-"+strconv.Itoa(i), rel, tree.Revision)
			if err != nil {
				return nil, err
			}
			out = append(out, in)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s at %s holds neither an object nor a list of objects", rel, tree.Revision)
}

// entry is the input of one object of file rel: its own id, or id.
func entry(fields map[string]any, otherwise, rel, revision string) (inputs.Input, error) {
	id, err := inputs.IDOf(fields, otherwise)
	if err != nil {
		return inputs.Input{}, fmt.Errorf("%s at %s: id: %w", rel, revision, err)
	}
	fields["id"], fields["path"], fields["revision"] = id, rel, revision
	return inputs.Input{ID: id, Fields: fields}, nil
}

// walk calls visit with every path under root (slash-separated, relative),
// in lexical order, never entering .git nor following a link.
func walk(root string, visit func(rel string, d fs.DirEntry) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		return visit(filepath.ToSlash(rel), d)
	})
}

func compile(patterns []string) ([]glob.Glob, error) {
	out := make([]glob.Glob, 0, len(patterns))
	for _, p := range patterns {
		g, err := glob.Compile(strings.Trim(p, "/"), '/')
		if err != nil {
			return nil, fmt.Errorf("glob %q: %w", p, err)
		}
		out = append(out, g)
	}
	return out, nil
}

func matches(globs []glob.Glob, rel string) bool {
	return slices.ContainsFunc(globs, func(g glob.Glob) bool { return g.Match(rel) })
}
