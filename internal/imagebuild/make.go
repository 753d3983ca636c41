package imagebuild

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/mod/semver"

	"github.com/wavekit-dev/wavekit/internal/release"
)

// Platforms are the platforms the images are built for by default.
var Platforms = []v1.Platform{
	{OS: "linux", Architecture: "amd64"},
	{OS: "linux", Architecture: "arm64"},
}

// Options say what Make builds and where it writes it.
type Options struct {
	// ModuleDir is the root of the wavekit module.
	ModuleDir string
	// Metadata is the version, revision and creation time of the build.
	Metadata
	// Reference is the name the archives give the image, with a tag:
	// ghcr.io/wavekit-dev/component-operator:v0.2.0.
	Reference string
	// OutDir is the directory the archives are written to.
	OutDir string
	// Platforms default to Platforms.
	Platforms []v1.Platform
	// Image is what to build: Operator (the default) or Agent.
	Image Image
	// Package overrides Image.Package, the main package the image runs;
	// the specs give a stand-in that compiles in seconds.
	Package string
}

// Result is what Make wrote.
type Result struct {
	// Index is the multi-platform image index.
	Index v1.ImageIndex
	// Digest is the index's digest.
	Digest v1.Hash
	// OCIArchive is the path of the OCI archive of the index.
	OCIArchive string
	// DockerArchives are the paths of the Docker archives, by platform
	// ("linux/amd64").
	DockerArchives map[string]string
}

// Make compiles opts.Image's package for every platform, builds the image
// index and writes it to opts.OutDir as an OCI archive
// (<title>-<version>.oci.tar, component-operator-v0.2.0.oci.tar) and as one
// Docker archive a platform (<title>-<version>-<os>-<arch>.docker.tar).
func Make(ctx context.Context, opts Options) (*Result, error) {
	opts.Image = opts.Image.orDefault()
	if opts.Package != "" {
		opts.Image.Package = opts.Package
	}
	if !semver.IsValid(opts.Version) {
		return nil, fmt.Errorf("version %q is not a semantic version such as v0.2.0", opts.Version)
	}
	normalized, err := NormalizeName(opts.Reference)
	if err != nil {
		return nil, err
	}
	tag, err := name.NewTag(normalized)
	if err != nil {
		return nil, fmt.Errorf("image name %q: %w", opts.Reference, err)
	}
	platforms := opts.Platforms
	if len(platforms) == 0 {
		platforms = Platforms
	}
	work, err := os.MkdirTemp("", "wavekit-image-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	images := make([]v1.Image, len(platforms))
	for i, platform := range platforms {
		if images[i], err = platformImage(ctx, opts, platform, work); err != nil {
			return nil, err
		}
	}
	index, err := NewIndex(platforms, images)
	if err != nil {
		return nil, err
	}
	return write(index, platforms, images, tag, opts)
}

// platformImage compiles opts.Image's package for platform in work and
// builds its image.
func platformImage(ctx context.Context, opts Options, platform v1.Platform, work string) (v1.Image, error) {
	binary := filepath.Join(work, opts.Image.Title+"-"+platform.OS+"-"+platform.Architecture)
	if err := Compile(ctx, opts.ModuleDir, opts.Image.Package, opts.Version, platform, binary); err != nil {
		return nil, err
	}
	if err := writeSBOM(binary, opts, platform); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	return opts.Image.New(data, platform, opts.Metadata)
}

// NewIndex is the OCI image index of images, one a platform.
func NewIndex(platforms []v1.Platform, images []v1.Image) (v1.ImageIndex, error) {
	adds := make([]mutate.IndexAddendum, len(images))
	for i, img := range images {
		adds[i] = mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &platforms[i]}}
	}
	index := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	if _, err := index.Digest(); err != nil {
		return nil, fmt.Errorf("image index: %w", err)
	}
	return index, nil
}

// write writes index and its images to opts.OutDir.
func write(index v1.ImageIndex, platforms []v1.Platform, images []v1.Image, tag name.Tag, opts Options) (*Result, error) {
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return nil, err
	}
	digest, err := index.Digest()
	if err != nil {
		return nil, err
	}
	prefix := filepath.Join(opts.OutDir, opts.Image.Title+"-"+opts.Version)
	result := &Result{Index: index, Digest: digest, OCIArchive: prefix + ".oci.tar", DockerArchives: map[string]string{}}
	if err := WriteOCIArchive(result.OCIArchive, index, tag, opts.Created); err != nil {
		return nil, err
	}
	for i, platform := range platforms {
		path := prefix + "-" + platform.OS + "-" + platform.Architecture + ".docker.tar"
		if err := WriteDockerArchive(path, images[i], tag); err != nil {
			return nil, err
		}
		result.DockerArchives[platform.String()] = path
	}
	return result, nil
}

// writeSBOM writes the SBOM of the image's binary for platform beside the
// archives: <title>-<version>-<os>-<arch>.cdx.json.
func writeSBOM(binary string, opts Options, platform v1.Platform) error {
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return err
	}
	bom, err := release.SBOM(binary, opts.Image.Title, opts.Created)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%s-%s-%s-%s.cdx.json", opts.Image.Title, opts.Version, platform.OS, platform.Architecture)
	return release.WriteSBOM(bom, filepath.Join(opts.OutDir, name))
}
