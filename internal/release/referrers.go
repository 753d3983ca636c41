package release

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Media types of a Sigstore bundle attached to an image, as cosign v3
// attaches it (an OCI 1.1 artifact whose subject is the image).
const (
	BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	emptyMediaType  = "application/vnd.oci.empty.v1+json"
	manifestType    = "application/vnd.oci.image.manifest.v1+json"
)

// Referrers is what a release attaches to one image: its signature and
// its attestations, each a Sigstore bundle, written to dist/ beside the
// image's archive (<image>-<version>.referrers.json) so that pushing the
// image can attach them without the key.
type Referrers struct {
	// Image is the name the archive gives the image (IMG).
	Image string `json:"image"`
	// Subject is the image's index: its media type, digest and size.
	Subject Descriptor `json:"subject"`
	// Created is the time each referrer's manifest carries (the commit's).
	Created time.Time `json:"created"`
	// Bundles are the signature and the attestations.
	Bundles []Attached `json:"bundles"`
	// Tag is the signature again in the tag form of earlier cosign
	// releases, for the admission controllers that read only that.
	Tag *TagSignature `json:"tagSignature,omitempty"`
}

// Descriptor names a manifest or a blob of a registry.
type Descriptor struct {
	MediaType    string            `json:"mediaType"`
	ArtifactType string            `json:"artifactType,omitempty"`
	Digest       string            `json:"digest"`
	Size         int64             `json:"size"`
	Annotations  map[string]string `json:"annotations,omitempty"`
}

// Attached is one bundle and what it states.
type Attached struct {
	PredicateType string          `json:"predicateType"`
	Bundle        json.RawMessage `json:"bundle"`
}

// Artifact is one referrer to push: its manifest and the blobs it names.
type Artifact struct {
	Manifest []byte
	Blobs    map[string][]byte
}

// Artifacts are the OCI manifests (with their blobs) that attach r's
// bundles to its image, as cosign v3 writes them: artifactType and layer
// the bundle's media type, an empty config, the predicate type and the
// bundle's content kind in annotations, the image as subject.
func (r Referrers) Artifacts() ([]Artifact, error) {
	empty := []byte("{}")
	var out []Artifact
	for _, b := range r.Bundles {
		layer := blobDescriptor(BundleMediaType, b.Bundle)
		config := blobDescriptor(emptyMediaType, empty)
		subject := r.Subject
		subject.Annotations = nil
		manifest := map[string]any{
			"schemaVersion": 2,
			"mediaType":     manifestType,
			"artifactType":  BundleMediaType,
			"config":        config,
			"layers":        []Descriptor{layer},
			"subject":       subject,
			"annotations": map[string]string{
				"dev.sigstore.bundle.content":       "dsse-envelope",
				"dev.sigstore.bundle.predicateType": b.PredicateType,
				"org.opencontainers.image.created":  r.Created.UTC().Format(time.RFC3339),
			},
		}
		data, err := json.Marshal(manifest)
		if err != nil {
			return nil, err
		}
		out = append(out, Artifact{Manifest: data, Blobs: map[string][]byte{layer.Digest: b.Bundle, config.Digest: empty}})
	}
	return out, nil
}

// WriteReferrers writes r to path as indented JSON.
func WriteReferrers(r Referrers, path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// ReadReferrers reads what WriteReferrers wrote.
func ReadReferrers(path string) (Referrers, error) {
	var r Referrers
	data, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// blobDescriptor describes data as a blob of mediaType.
func blobDescriptor(mediaType string, data []byte) Descriptor {
	sum := sha256.Sum256(data)
	return Descriptor{MediaType: mediaType, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(data))}
}
