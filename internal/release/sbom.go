package release

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

// SBOM returns the CycloneDX document of the Go binary at path, named
// name: the main module as its subject, each module it was built with as
// a component (a replaced module as its replacement, which is what the
// binary holds), the build's settings as properties. created is the time
// it records (the commit's, for a reproducible document).
func SBOM(path, name string, created time.Time) (*cdx.BOM, error) {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the build information of %s: %w", path, err)
	}
	digest, err := fileSHA256(path)
	if err != nil {
		return nil, err
	}
	bom := cdx.NewBOM()
	bom.SpecVersion = cdx.SpecVersion1_6
	bom.SerialNumber = "urn:uuid:" + uuidOf(digest)
	subject := moduleComponent(&info.Main, cdx.ComponentTypeApplication)
	subject.Name, subject.BOMRef = name, "pkg:golang/"+info.Path+"@"+info.Main.Version
	subject.Hashes = &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: digest}}
	subject.Properties = buildProperties(info)
	bom.Metadata = &cdx.Metadata{Timestamp: created.UTC().Format(time.RFC3339), Component: &subject,
		Tools: &cdx.ToolsChoice{Components: &[]cdx.Component{{Type: cdx.ComponentTypeApplication, Name: "wavekit hack/release",
			Version: info.GoVersion}}}}
	components := make([]cdx.Component, 0, len(info.Deps))
	refs := make([]string, 0, len(info.Deps))
	for _, dep := range info.Deps {
		c := moduleComponent(dep, cdx.ComponentTypeLibrary)
		components = append(components, c)
		refs = append(refs, c.BOMRef)
	}
	bom.Components = &components
	bom.Dependencies = &[]cdx.Dependency{{Ref: subject.BOMRef, Dependencies: &refs}}
	return bom, nil
}

// WriteSBOM writes bom as indented JSON to path.
func WriteSBOM(bom *cdx.BOM, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing the SBOM %s: %w", path, err)
	}
	encoder := cdx.NewBOMEncoder(f, cdx.BOMFileFormatJSON).SetPretty(true).SetEscapeHTML(false)
	if err := encoder.EncodeVersion(bom, cdx.SpecVersion1_6); err != nil {
		f.Close()
		return fmt.Errorf("writing the SBOM %s: %w", path, err)
	}
	return f.Close()
}

// moduleComponent is the component of a module: its replacement when it
// has one.
func moduleComponent(m *debug.Module, kind cdx.ComponentType) cdx.Component {
	if m.Replace != nil {
		m = m.Replace
	}
	purl := "pkg:golang/" + m.Path + "@" + m.Version
	c := cdx.Component{Type: kind, Name: m.Path, Version: m.Version, PackageURL: purl, BOMRef: purl}
	if m.Sum != "" {
		c.Properties = &[]cdx.Property{{Name: "go:module:sum", Value: m.Sum}}
	}
	return c
}

// buildProperties are the Go version and the build settings (GOOS,
// GOARCH, -trimpath, -ldflags, vcs.revision…), as `go version -m` shows
// them.
func buildProperties(info *buildinfo.BuildInfo) *[]cdx.Property {
	props := []cdx.Property{{Name: "go:version", Value: info.GoVersion}}
	for _, s := range info.Settings {
		props = append(props, cdx.Property{Name: "go:build:" + s.Key, Value: s.Value})
	}
	return &props
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// uuidOf is a version-8 UUID made of a hex digest: the same binary, the
// same serial number.
func uuidOf(digest string) string {
	b := []byte(digest[:32])
	b[12] = '8'
	b[16] = "89ab"[strings.IndexByte("0123456789abcdef", b[16])%4]
	return string(b[0:8]) + "-" + string(b[8:12]) + "-" + string(b[12:16]) + "-" + string(b[16:20]) + "-" + string(b[20:32])
}
