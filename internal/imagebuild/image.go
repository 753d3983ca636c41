package imagebuild

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// What the image runs, and as whom. The Dockerfile says the same.
const (
	// Binary is where the operator binary lies in the image.
	Binary = "/component-operator"
	// User is the user and group the operator runs as: distroless' nonroot.
	User = "65532:65532"
	// WorkingDir is the working directory of the operator.
	WorkingDir = "/"
)

// Entrypoint is the command the image runs.
var Entrypoint = []string{Binary}

// Source is the repository the image is built from.
const Source = "https://github.com/wavekit-dev/wavekit"

// Metadata says which build an image is.
type Metadata struct {
	// Version is the wavekit version stamped into the binary.
	Version string
	// Revision is the git commit the image is built from.
	Revision string
	// Created is the time every time stamp in the image carries.
	Created time.Time
}

// Labels are the image's OCI labels.
func (m Metadata) Labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.source":      Source,
		"org.opencontainers.image.version":     m.Version,
		"org.opencontainers.image.revision":    m.Revision,
		"org.opencontainers.image.title":       "component-operator",
		"org.opencontainers.image.description": "wavekit reference component operator",
		"org.opencontainers.image.licenses":    "Apache-2.0",
	}
}

// NewImage is the operator image for platform: one layer on an empty base,
// with binary at Binary, the nonroot user in /etc/passwd and /etc/group,
// and a writable /tmp (the operator's default source cache).
func NewImage(binary []byte, platform v1.Platform, meta Metadata) (v1.Image, error) {
	files, err := rootFS(binary, meta.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(files)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
	if err != nil {
		return nil, fmt.Errorf("image layer for %s: %w", platform, err)
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   v1.Time{Time: meta.Created},
			CreatedBy: "wavekit internal/imagebuild: " + Binary + ", /etc/passwd, /etc/group, /tmp",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("image for %s: %w", platform, err)
	}
	config, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	config = config.DeepCopy()
	config.OS, config.Architecture, config.Variant = platform.OS, platform.Architecture, platform.Variant
	config.Created = v1.Time{Time: meta.Created}
	config.Config = v1.Config{
		User:       User,
		Entrypoint: Entrypoint,
		WorkingDir: WorkingDir,
		Labels:     meta.Labels(),
	}
	return mutate.ConfigFile(img, config)
}

// Accounts are the image's /etc/passwd and /etc/group: root and nonroot
// (65532), so that tools that map the user to a name find one.
const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group  = "root:x:0:\nnonroot:x:65532:\n"
)

// rootFS is the layer's tar: the binary, the accounts, the nonroot home
// and /tmp, every entry stamped with created.
func rootFS(binary []byte, created time.Time) ([]byte, error) {
	type entry struct {
		header tar.Header
		data   []byte
	}
	dir := func(name string, mode int64, owner int) entry {
		return entry{header: tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, Uid: owner, Gid: owner}}
	}
	file := func(name string, mode int64, data []byte) entry {
		return entry{header: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data))}, data: data}
	}
	entries := []entry{
		file(Binary[1:], 0o755, binary),
		dir("etc/", 0o755, 0),
		file("etc/group", 0o644, []byte(group)),
		file("etc/passwd", 0o644, []byte(passwd)),
		dir("home/", 0o755, 0),
		dir("home/nonroot/", 0o700, 65532),
		dir("tmp/", 0o1777, 0),
	}
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for _, e := range entries {
		e.header.ModTime = created
		if err := w.WriteHeader(&e.header); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", e.header.Name, err)
		}
		if _, err := w.Write(e.data); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", e.header.Name, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
