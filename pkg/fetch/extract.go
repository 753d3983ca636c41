package fetch

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxLinkHops bounds how many symlinks resolving one path may follow, as
// the kernel does.
const maxLinkHops = 40

// extractTarGz extracts the gzipped tar r into dir, refusing what would
// reach outside dir: absolute paths, "..", symlinks leading outside, hard
// links, devices and fifos. The files may add up to at most limit bytes.
// source names the archive in errors.
func extractTarGz(r io.Reader, dir string, limit int64, source string) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("archive %s: %w", source, err)
	}
	defer zr.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("archive %s: %w", source, err)
	}
	x := &extraction{root: dir, source: source, limit: limit}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("archive %s: %w", source, err)
		}
		if err := x.entry(hdr, tr); err != nil {
			return err
		}
	}
	return x.createLinks()
}

// extraction is one archive being extracted.
type extraction struct {
	root, source   string
	limit, written int64
	links          []symlink // created last, so that no file is written through one
}

type symlink struct{ name, target string }

// entry extracts one tar entry.
func (x *extraction) entry(hdr *tar.Header, r io.Reader) error {
	name, err := x.cleanName(hdr.Name)
	if err != nil || (name == "." && hdr.Typeflag == tar.TypeDir) {
		return err
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		return x.wrap(name, os.MkdirAll(x.path(name), 0o755))
	case tar.TypeReg:
		return x.file(name, hdr, r)
	case tar.TypeSymlink:
		return x.deferLink(name, hdr.Linkname)
	case tar.TypeXGlobalHeader:
		return nil
	case tar.TypeLink:
		return x.refuse(hdr.Name, "hard links are not supported")
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		return x.refuse(hdr.Name, "device files and fifos are not allowed")
	}
	return x.refuse(hdr.Name, fmt.Sprintf("unsupported entry type %q", hdr.Typeflag))
}

// cleanName returns an entry's path, cleaned, or refuses it if it is
// absolute or has a ".." in it.
func (x *extraction) cleanName(raw string) (string, error) {
	if path.IsAbs(raw) || filepath.IsAbs(raw) {
		return "", x.refuse(raw, "absolute path")
	}
	for _, part := range strings.Split(raw, "/") {
		if part == ".." {
			return "", x.refuse(raw, `path contains ".."`)
		}
	}
	return path.Clean(raw), nil
}

// file extracts a regular file, keeping only its executable bit.
func (x *extraction) file(name string, hdr *tar.Header, r io.Reader) error {
	if name == "." {
		return x.refuse(hdr.Name, "a file at the archive's root")
	}
	if hdr.Size > x.limit-x.written {
		return &SizeLimitError{URL: x.source, What: "extracted content", Limit: x.limit}
	}
	target := x.path(name)
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return x.wrap(name, err)
	}
	mode := os.FileMode(0o644)
	if hdr.Mode&0o111 != 0 {
		mode = 0o755
	}
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return x.wrap(name, err)
	}
	n, err := io.Copy(out, r) // the tar reader stops at hdr.Size
	x.written += n
	if closeErr := out.Close(); err == nil {
		err = closeErr
	}
	return x.wrap(name, err)
}

// deferLink records a symlink to create once the files are out, refusing
// one that leads outside the root on its face.
func (x *extraction) deferLink(name, target string) error {
	if target == "" || path.IsAbs(target) || filepath.IsAbs(target) {
		return x.refuse(name, fmt.Sprintf("symlink to absolute path %q", target))
	}
	if resolved := path.Join(path.Dir(name), target); resolved == ".." || strings.HasPrefix(resolved, "../") {
		return x.refuse(name, fmt.Sprintf("symlink to %q leads outside the archive", target))
	}
	x.links = append(x.links, symlink{name: name, target: target})
	return nil
}

// createLinks creates the symlinks, then checks that following each, and
// the links it leads through, stays inside the root.
func (x *extraction) createLinks() error {
	for _, l := range x.links {
		if err := os.MkdirAll(filepath.Dir(x.path(l.name)), 0o755); err != nil {
			return x.wrap(l.name, err)
		}
		if err := os.Symlink(l.target, x.path(l.name)); err != nil {
			return x.wrap(l.name, err)
		}
	}
	for _, l := range x.links {
		if reason := x.escapes(l.name); reason != "" {
			return x.refuse(l.name, fmt.Sprintf("symlink to %q %s", l.target, reason))
		}
	}
	return nil
}

// escapes resolves the path name, relative to the root, component by
// component, following symlinks as the kernel would; it says why if that
// leaves the root, and returns "" if it does not. A path that reaches
// something missing stops there, as the kernel's lookup does.
func (x *extraction) escapes(name string) string {
	var resolved []string // components below the root
	pending := strings.Split(name, "/")
	for hops := 0; len(pending) > 0; {
		part := pending[0]
		pending = pending[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if len(resolved) == 0 {
				return "leads outside the archive"
			}
			resolved = resolved[:len(resolved)-1]
			continue
		}
		next := path.Join(path.Join(resolved...), part)
		info, err := os.Lstat(x.path(next))
		if err != nil {
			return "" // missing (or not a directory): resolution ends here
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			resolved = append(resolved, part)
			continue
		}
		if hops++; hops > maxLinkHops {
			return "makes a loop of symlinks"
		}
		target, err := os.Readlink(x.path(next))
		if err != nil || path.IsAbs(target) {
			return "leads to an absolute path"
		}
		pending = append(strings.Split(target, "/"), pending...)
	}
	return ""
}

// path is the file system path of the entry name.
func (x *extraction) path(name string) string {
	return filepath.Join(x.root, filepath.FromSlash(name))
}

func (x *extraction) refuse(entry, reason string) error {
	return &UnsafeArchiveError{URL: x.source, Entry: entry, Reason: reason}
}

// wrap names the archive and the entry in an error of the file system.
func (x *extraction) wrap(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("archive %s: extracting %s: %w", x.source, name, err)
}
