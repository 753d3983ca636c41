package localregistry

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
)

// Signer signs charts in a registry as cosign's key mode does, with a key
// pair it makes: no transparency log, no certificate.
type Signer struct {
	keypair *sign.EphemeralKeypair
	pem     []byte
}

// NewSigner makes a key pair (ECDSA P-256, as cosign generate-key-pair).
func NewSigner() (*Signer, error) {
	keypair, err := sign.NewEphemeralKeypair(nil)
	if err != nil {
		return nil, err
	}
	pem, err := keypair.GetPublicKeyPem()
	if err != nil {
		return nil, err
	}
	return &Signer{keypair: keypair, pem: []byte(pem)}, nil
}

// PublicKeyPEM is the public key, as cosign.pub holds it.
func (s *Signer) PublicKeyPEM() []byte { return s.pem }

// Media types of what cosign attaches to a manifest.
const (
	bundleMediaType        = "application/vnd.dev.sigstore.bundle.v0.3+json"
	simpleSigningMediaType = "application/vnd.dev.cosign.simplesigning.v1+json"
	inTotoPayloadType      = "application/vnd.in-toto+json"
)

// SignBundle signs the manifest of path/name:version as cosign v3 does: a
// Sigstore bundle (a DSSE envelope of an in-toto statement whose subject
// is the manifest's digest) attached to the manifest as an OCI referrer.
func (r *Registry) SignBundle(ctx context.Context, path, name, version string, s *Signer) error {
	repo, manifest, err := r.resolve(ctx, path, name, version)
	if err != nil {
		return err
	}
	statement, err := json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []map[string]any{{"name": repo.Reference.Repository, "digest": map[string]string{"sha256": manifest.Digest.Encoded()}}},
		"predicateType": "https://sigstore.dev/cosign/sign/v1",
		"predicate":     map[string]any{},
	})
	if err != nil {
		return err
	}
	b, err := sign.Bundle(&sign.DSSEData{Data: statement, PayloadType: inTotoPayloadType}, s.keypair, sign.BundleOptions{})
	if err != nil {
		return fmt.Errorf("signing %s: %w", manifest.Digest, err)
	}
	data, err := protojson.Marshal(b)
	if err != nil {
		return err
	}
	layer, err := pushBlob(ctx, repo, bundleMediaType, data, nil)
	if err != nil {
		return err
	}
	_, err = oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, bundleMediaType, oras.PackManifestOptions{
		Subject: &manifest, Layers: []ocispec.Descriptor{layer},
	})
	return err
}

// SignTag signs the manifest of path/name:version as cosign before v3
// does: a simple-signing payload naming the manifest's digest, signed, in
// the tag sha256-<hex>.sig.
func (r *Registry) SignTag(ctx context.Context, path, name, version string, s *Signer) error {
	repo, manifest, err := r.resolve(ctx, path, name, version)
	if err != nil {
		return err
	}
	payload, err := json.Marshal(map[string]any{
		"critical": map[string]any{
			"identity": map[string]string{"docker-reference": repo.Reference.Registry + "/" + repo.Reference.Repository},
			"image":    map[string]string{"docker-manifest-digest": manifest.Digest.String()},
			"type":     "cosign container image signature",
		},
		"optional": nil,
	})
	if err != nil {
		return err
	}
	sig, _, err := s.keypair.SignData(ctx, payload)
	if err != nil {
		return err
	}
	annotations := map[string]string{"dev.cosignproject.cosign/signature": base64.StdEncoding.EncodeToString(sig)}
	layer, err := pushBlob(ctx, repo, simpleSigningMediaType, payload, annotations)
	if err != nil {
		return err
	}
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, simpleSigningMediaType, oras.PackManifestOptions{Layers: []ocispec.Descriptor{layer}})
	if err != nil {
		return err
	}
	return repo.Tag(ctx, desc, "sha256-"+manifest.Digest.Encoded()+".sig")
}

// ManifestDigest is the digest of path/name:version's manifest.
func (r *Registry) ManifestDigest(ctx context.Context, path, name, version string) (string, error) {
	_, manifest, err := r.resolve(ctx, path, name, version)
	return manifest.Digest.String(), err
}

// LayerDigest is the digest of the chart layer of path/name:version.
func (r *Registry) LayerDigest(ctx context.Context, path, name, version string) (string, error) {
	repo, manifest, err := r.resolve(ctx, path, name, version)
	if err != nil {
		return "", err
	}
	data, err := content.FetchAll(ctx, repo, manifest)
	if err != nil {
		return "", err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return "", err
	}
	if len(m.Layers) == 0 {
		return "", fmt.Errorf("%s %s: no layer", name, version)
	}
	return m.Layers[0].Digest.String(), nil
}

// resolve returns the repository of path/name and the manifest of a
// version's tag ("+" pushed as "_", as Helm does).
func (r *Registry) resolve(ctx context.Context, path, name, version string) (*remote.Repository, ocispec.Descriptor, error) {
	repo, err := remote.NewRepository(r.Host + "/" + path + "/" + name)
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	repo.PlainHTTP = true
	if r.Username != "" {
		repo.Client = &auth.Client{Credential: auth.StaticCredential(r.Host, auth.Credential{Username: r.Username, Password: r.Password})}
	}
	manifest, err := repo.Resolve(ctx, strings.ReplaceAll(version, "+", "_"))
	if err != nil {
		return nil, ocispec.Descriptor{}, fmt.Errorf("resolving %s %s: %w", name, version, err)
	}
	return repo, manifest, nil
}

// pushBlob pushes data as a blob of mediaType.
func pushBlob(ctx context.Context, repo *remote.Repository, mediaType string, data []byte, annotations map[string]string) (ocispec.Descriptor, error) {
	desc := content.NewDescriptorFromBytes(mediaType, data)
	desc.Annotations = annotations
	if err := repo.Push(ctx, desc, bytes.NewReader(data)); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("pushing a %s blob: %w", mediaType, err)
	}
	return desc, nil
}
