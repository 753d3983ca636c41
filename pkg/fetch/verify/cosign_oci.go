package verify

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	sigverify "github.com/sigstore/sigstore-go/pkg/verify"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

const (
	// bundleTypePrefix begins the artifact and media types of Sigstore
	// bundles (application/vnd.dev.sigstore.bundle.v0.3+json).
	bundleTypePrefix = "application/vnd.dev.sigstore.bundle"
	// signatureAnnotation holds a tag-based cosign signature, base64.
	signatureAnnotation = "dev.cosignproject.cosign/signature"
	// maxSignatureSize bounds what is read of a signature's manifest or blob.
	maxSignatureSize = 4 << 20
	// maxReferrers bounds how many referrers are looked at.
	maxReferrers = 64
)

// verifyBundles verifies the Sigstore bundles attached to the manifest d as
// OCI referrers, the first that a key verifies winning.
func (v *CosignVerifier) verifyBundles(ctx context.Context, s fetch.Subject, d []byte) (string, error) {
	subject := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.Digest(s.Digest)}
	var found []ocispec.Descriptor
	err := s.Registry.Referrers(ctx, subject, "", func(page []ocispec.Descriptor) error {
		for _, r := range page {
			if strings.HasPrefix(r.ArtifactType, bundleTypePrefix) && len(found) < maxReferrers {
				found = append(found, r)
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("Sigstore bundles: listing the referrers: %w", err)
	}
	if len(found) == 0 {
		return "", errors.New("Sigstore bundles: none among the referrers")
	}
	var tried attempts
	for _, r := range found {
		message, err := v.verifyBundle(ctx, s, r, d)
		if err == nil {
			return message, nil
		}
		tried = append(tried, fmt.Errorf("Sigstore bundle %s: %w", r.Digest, err))
	}
	return "", tried
}

// verifyBundle reads the bundle of one referrer and verifies it.
func (v *CosignVerifier) verifyBundle(ctx context.Context, s fetch.Subject, referrer ocispec.Descriptor, d []byte) (string, error) {
	manifest, err := fetchManifest(ctx, s.Registry, referrer)
	if err != nil {
		return "", err
	}
	if len(manifest.Layers) == 0 || !strings.HasPrefix(manifest.Layers[0].MediaType, bundleTypePrefix) {
		return "", errors.New("no bundle layer")
	}
	data, err := fetchBlob(ctx, s.Registry, manifest.Layers[0])
	if err != nil {
		return "", err
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(data); err != nil {
		return "", fmt.Errorf("reading the bundle: %w", err)
	}
	var tried attempts
	for _, key := range v.keys {
		if err := verifyBundleWith(key, &b, d); err != nil {
			tried = append(tried, fmt.Errorf("%s: %w", key.name, err))
			continue
		}
		return fmt.Sprintf("cosign signature (Sigstore bundle %s) of %s verified with key %s", referrer.Digest, s.Digest, key), nil
	}
	return "", tried
}

// verifyBundleWith verifies that b signs the digest d with key, offline:
// no transparency log, no timestamps.
func verifyBundleWith(key publicKey, b *bundle.Bundle, d []byte) error {
	trusted := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
		return root.NewExpiringKey(key.verifier, time.Time{}, time.Time{}), nil
	})
	verifier, err := sigverify.NewVerifier(trusted, sigverify.WithNoObserverTimestamps())
	if err != nil {
		return err
	}
	_, err = verifier.Verify(b, sigverify.NewPolicy(sigverify.WithArtifactDigest("sha256", d), sigverify.WithKey()))
	return err
}

// simpleSigning is the payload a tag-based cosign signature signs.
type simpleSigning struct {
	Critical struct {
		Image struct {
			DockerManifestDigest string `json:"docker-manifest-digest"`
		} `json:"image"`
		Type string `json:"type"`
	} `json:"critical"`
}

// verifyTagSignature verifies the signatures of the tag sha256-<hex>.sig.
func (v *CosignVerifier) verifyTagSignature(ctx context.Context, s fetch.Subject, d []byte) (string, error) {
	tag := "sha256-" + hex.EncodeToString(d) + ".sig"
	desc, err := s.Registry.Resolve(ctx, tag)
	if errors.Is(err, errdef.ErrNotFound) {
		return "", fmt.Errorf("tag %s: not found", tag)
	}
	if err != nil {
		return "", fmt.Errorf("tag %s: %w", tag, err)
	}
	manifest, err := fetchManifest(ctx, s.Registry, desc)
	if err != nil {
		return "", fmt.Errorf("tag %s: %w", tag, err)
	}
	var tried attempts
	for _, layer := range manifest.Layers {
		message, err := v.verifyLayerSignature(ctx, s.Registry, layer, s.Digest)
		if err == nil {
			return message, nil
		}
		tried = append(tried, err)
	}
	if len(tried) == 0 {
		return "", fmt.Errorf("tag %s: no signature in it", tag)
	}
	return "", fmt.Errorf("tag %s: %w", tag, tried)
}

// verifyLayerSignature verifies one signature of a .sig tag: the
// annotation's signature over the layer's payload, which must name digest.
func (v *CosignVerifier) verifyLayerSignature(ctx context.Context, repo *remote.Repository, layer ocispec.Descriptor, digest string) (string, error) {
	sig, err := base64.StdEncoding.DecodeString(layer.Annotations[signatureAnnotation])
	if err != nil || len(sig) == 0 {
		return "", fmt.Errorf("layer %s: no signature annotation", layer.Digest)
	}
	payload, err := fetchBlob(ctx, repo, layer)
	if err != nil {
		return "", err
	}
	var tried attempts
	for _, key := range v.keys {
		if err := key.verifier.VerifySignature(bytes.NewReader(sig), bytes.NewReader(payload)); err != nil {
			tried = append(tried, fmt.Errorf("%s: %w", key.name, err))
			continue
		}
		var signed simpleSigning
		if err := json.Unmarshal(payload, &signed); err != nil {
			return "", fmt.Errorf("layer %s: reading the signed payload: %w", layer.Digest, err)
		}
		if got := signed.Critical.Image.DockerManifestDigest; got != digest {
			return "", fmt.Errorf("layer %s: the signature is of %s, not of %s", layer.Digest, got, digest)
		}
		return fmt.Sprintf("cosign signature (tag sha256-%s.sig) of %s verified with key %s", digest[len("sha256:"):], digest, key), nil
	}
	return "", fmt.Errorf("layer %s: %w", layer.Digest, tried)
}

// fetchManifest reads an OCI image manifest, bounded and digest-checked.
func fetchManifest(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor) (ocispec.Manifest, error) {
	var manifest ocispec.Manifest
	if desc.Size > maxSignatureSize {
		return manifest, fmt.Errorf("manifest %s: %d bytes, more than %d", desc.Digest, desc.Size, maxSignatureSize)
	}
	data, err := content.FetchAll(ctx, repo.Manifests(), desc)
	if err != nil {
		return manifest, fmt.Errorf("manifest %s: %w", desc.Digest, err)
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		return manifest, fmt.Errorf("manifest %s: %w", desc.Digest, err)
	}
	return manifest, nil
}

// fetchBlob reads a blob, bounded and digest-checked.
func fetchBlob(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor) ([]byte, error) {
	if desc.Size > maxSignatureSize {
		return nil, fmt.Errorf("blob %s: %d bytes, more than %d", desc.Digest, desc.Size, maxSignatureSize)
	}
	data, err := content.FetchAll(ctx, repo.Blobs(), desc)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", desc.Digest, err)
	}
	return data, nil
}
