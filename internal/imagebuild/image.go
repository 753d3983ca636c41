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

// What the images run as, and from where. The Dockerfile says the same.
const (
	// Binary is where the operator binary lies in the operator image.
	Binary = "/component-operator"
	// User is the user and group the programs run as: distroless' nonroot.
	User = "65532:65532"
	// WorkingDir is the working directory of the programs.
	WorkingDir = "/"
)

// Entrypoint is the command the operator image runs.
var Entrypoint = []string{Binary}

// Source is the repository the images are built from.
const Source = "https://github.com/wavekit-dev/wavekit"

// Image says which program an image carries and what it is called; one
// build (Make, New) serves every Image.
type Image struct {
	// Package is the main package, relative to the module root.
	Package string
	// Binary is where the binary lies in the image; it is the entrypoint.
	Binary string
	// Cmd are the default arguments of the entrypoint, if any.
	Cmd []string
	// Title names the image (label org.opencontainers.image.title) and
	// its archives (<Title>-<version>.oci.tar).
	Title string
	// Description is the label org.opencontainers.image.description.
	Description string
	// CACertificates puts a CA bundle at /etc/ssl/certs/ca-certificates.crt,
	// as the distroless base has, for a binary that does not carry its own
	// roots.
	CACertificates bool
}

// Operator is the reference operator's image, the default of Make.
var Operator = Image{
	Package:     Package,
	Binary:      Binary,
	Title:       "component-operator",
	Description: "wavekit reference component operator",
}

// Agent is the image of the pull-mode agent (wavekit agent run): the
// wavekit CLI, as the Dockerfile's target agent builds it. The CLI does not
// embed fallback roots, so the image carries the CA bundle the agent needs
// to fetch charts and artifacts over HTTPS.
var Agent = Image{
	Package:        "./cmd/wavekit",
	Binary:         "/wavekit",
	Cmd:            []string{"agent", "run", "--help"},
	Title:          "wavekit-agent",
	Description:    "wavekit pull-mode agent of a member cluster (wavekit agent run)",
	CACertificates: true,
}

// orDefault is image, or Operator for the zero Image.
func (image Image) orDefault() Image {
	if image.Binary == "" {
		return Operator
	}
	return image
}

// Metadata says which build an image is.
type Metadata struct {
	// Version is the wavekit version stamped into the binary.
	Version string
	// Revision is the git commit the image is built from.
	Revision string
	// Created is the time every time stamp in the image carries.
	Created time.Time
}

// Labels are the operator image's OCI labels.
func (m Metadata) Labels() map[string]string {
	return Operator.Labels(m)
}

// Labels are the image's OCI labels for the build meta.
func (image Image) Labels(meta Metadata) map[string]string {
	return map[string]string{
		"org.opencontainers.image.source":      Source,
		"org.opencontainers.image.version":     meta.Version,
		"org.opencontainers.image.revision":    meta.Revision,
		"org.opencontainers.image.title":       image.Title,
		"org.opencontainers.image.description": image.Description,
		"org.opencontainers.image.licenses":    "Apache-2.0",
	}
}

// NewImage is the operator image for platform (Operator.New).
func NewImage(binary []byte, platform v1.Platform, meta Metadata) (v1.Image, error) {
	return Operator.New(binary, platform, meta)
}

// New is the image for platform: one layer on an empty base, with binary
// at image.Binary, the nonroot user in /etc/passwd and /etc/group, a
// writable /tmp (the programs' default source cache) and, with
// CACertificates, the CA bundle.
func (image Image) New(binary []byte, platform v1.Platform, meta Metadata) (v1.Image, error) {
	files, err := image.rootFS(binary, meta.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(files)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
	if err != nil {
		return nil, fmt.Errorf("image layer for %s: %w", platform, err)
	}
	createdBy := "wavekit internal/imagebuild: " + image.Binary + ", /etc/passwd, /etc/group, /tmp"
	if image.CACertificates {
		createdBy += ", " + caBundle
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: v1.Time{Time: meta.Created}, CreatedBy: createdBy},
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
		Entrypoint: []string{image.Binary},
		Cmd:        image.Cmd,
		WorkingDir: WorkingDir,
		Labels:     image.Labels(meta),
	}
	return mutate.ConfigFile(img, config)
}

// Accounts are the image's /etc/passwd and /etc/group: root and nonroot
// (65532), so that tools that map the user to a name find one.
const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group  = "root:x:0:\nnonroot:x:65532:\n"
)

// rootFS is the layer's tar: the binary, the accounts, the nonroot home,
// /tmp and, with CACertificates, the CA bundle, every entry stamped with
// created.
func (image Image) rootFS(binary []byte, created time.Time) ([]byte, error) {
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
		file(image.Binary[1:], 0o755, binary),
		dir("etc/", 0o755, 0),
		file("etc/group", 0o644, []byte(group)),
		file("etc/passwd", 0o644, []byte(passwd)),
		dir("home/", 0o755, 0),
		dir("home/nonroot/", 0o700, 65532),
		dir("tmp/", 0o1777, 0),
	}
	if image.CACertificates {
		entries = append(entries,
			dir("etc/ssl/", 0o755, 0), dir("etc/ssl/certs/", 0o755, 0),
			file(caBundle, 0o644, caCertificates()))
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
