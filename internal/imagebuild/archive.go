package imagebuild

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/distribution/reference"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// The annotations that name the image in an OCI archive: containerd's
// import (kind, Docker with the containerd image store) reads the first,
// podman the second.
const (
	annotationContainerdName = "io.containerd.image.name"
	annotationRefName        = "org.opencontainers.image.ref.name"
)

// NormalizeName is ref as containerd and podman name it: with a registry
// (docker.io for none), library/ for an official Docker Hub image, and a
// tag (latest for none). A digest is refused: an archive names a tag.
func NormalizeName(ref string) (string, error) {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return "", fmt.Errorf("image name %q: %w", ref, err)
	}
	if _, digested := named.(reference.Digested); digested {
		return "", fmt.Errorf("image name %q: give a tag, not a digest", ref)
	}
	return reference.TagNameOnly(named).String(), nil
}

// WriteOCIArchive writes index as a tar of an OCI image layout to file,
// its one entry in index.json named tag; every entry of the tar carries
// the time created. containerd (kind load image-archive, ctr import,
// Docker's containerd image store) and podman load read it.
func WriteOCIArchive(file string, index v1.ImageIndex, tag name.Tag, created time.Time) error {
	dir, err := os.MkdirTemp("", "wavekit-oci-layout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("OCI layout in %s: %w", dir, err)
	}
	annotations := map[string]string{annotationContainerdName: tag.String(), annotationRefName: tag.String()}
	if err := p.AppendIndex(index, layout.WithAnnotations(annotations)); err != nil {
		return fmt.Errorf("OCI layout in %s: %w", dir, err)
	}
	return tarDirectory(dir, file, created)
}

// WriteDockerArchive writes img as a Docker archive (docker save's format,
// a manifest.json naming tag) to file: what every docker load reads.
func WriteDockerArchive(file string, img v1.Image, tag name.Tag) error {
	if err := tarball.WriteToFile(file, tag, img); err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return nil
}

// ReadOCIArchive reads the image index of an OCI archive that
// WriteOCIArchive wrote. It unpacks the archive into a temporary directory,
// which close removes; the index reads its blobs from there until then.
func ReadOCIArchive(file string) (index v1.ImageIndex, close func(), err error) {
	dir, err := os.MkdirTemp("", "wavekit-oci-layout-")
	if err != nil {
		return nil, nil, err
	}
	close = func() { _ = os.RemoveAll(dir) }
	defer func() {
		if err != nil {
			close()
		}
	}()
	if err := untar(file, dir); err != nil {
		return nil, nil, err
	}
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	manifest, err := top.IndexManifest()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(manifest.Manifests) != 1 || !manifest.Manifests[0].MediaType.IsIndex() {
		return nil, nil, fmt.Errorf("%s: index.json should name one image index, it names %d entries", file, len(manifest.Manifests))
	}
	index, err = top.ImageIndex(manifest.Manifests[0].Digest)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	return index, close, nil
}

// tarDirectory writes the files under dir to a tar at file, in lexical
// order, owned by root, with the time created: the same files give the
// same bytes.
func tarDirectory(dir, file string, created time.Time) (err error) {
	out, err := os.Create(file)
	if err != nil {
		return err
	}
	defer func() {
		if closeErr := out.Close(); err == nil {
			err = closeErr
		}
	}()
	w := tar.NewWriter(out)
	err = filepath.WalkDir(dir, func(p string, entry fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		header := &tar.Header{Name: filepath.ToSlash(rel), ModTime: created, Mode: 0o644, Typeflag: tar.TypeReg}
		if entry.IsDir() {
			header.Name += "/"
			header.Mode, header.Typeflag = 0o755, tar.TypeDir
			return w.WriteHeader(header)
		}
		return copyFile(w, header, p)
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return w.Close()
}

// copyFile writes header and the content of the file at p to w.
func copyFile(w *tar.Writer, header *tar.Header, p string) error {
	in, err := os.Open(p)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	header.Size = info.Size()
	if err := w.WriteHeader(header); err != nil {
		return err
	}
	_, err = io.Copy(w, in)
	return err
}

// untar unpacks the directories and regular files of the tar at file into
// dir; any other entry, or a name that leaves dir, is an error.
func untar(file, dir string) error {
	in, err := os.Open(file)
	if err != nil {
		return err
	}
	defer in.Close()
	r := tar.NewReader(in)
	for {
		header, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", file, err)
		}
		clean := path.Clean(header.Name)
		if !fs.ValidPath(clean) || strings.HasPrefix(clean, "../") {
			return fmt.Errorf("%s: entry %q leaves the archive", file, header.Name)
		}
		target := filepath.Join(dir, filepath.FromSlash(clean))
		switch header.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			err = writeFile(target, r)
		default:
			err = fmt.Errorf("entry %q is neither a file nor a directory", header.Name)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
}

// writeFile writes the content of r to a new file at p.
func writeFile(p string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ReadOCIArchiveName is the name:tag WriteOCIArchive gave the image of
// an OCI archive (the org.opencontainers.image.ref.name of its index.json).
func ReadOCIArchiveName(file string) (string, error) {
	in, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer in.Close()
	r := tar.NewReader(in)
	for {
		header, err := r.Next()
		if errors.Is(err, io.EOF) {
			return "", fmt.Errorf("%s: no index.json", file)
		}
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", file, err)
		}
		if path.Clean(header.Name) != "index.json" {
			continue
		}
		var index v1.IndexManifest
		if err := json.NewDecoder(r).Decode(&index); err != nil {
			return "", fmt.Errorf("%s: index.json: %w", file, err)
		}
		if len(index.Manifests) != 1 || index.Manifests[0].Annotations[annotationRefName] == "" {
			return "", fmt.Errorf("%s: index.json should name one image", file)
		}
		return index.Manifests[0].Annotations[annotationRefName], nil
	}
}
