package imagebuild

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/wavekit-dev/wavekit/internal/release"
)

// Push pushes index to the registry as ref (registry/repository:tag) and
// returns its digest. It logs in with what docker login stored
// (~/.docker/config.json or $DOCKER_CONFIG, credential helpers included),
// else with podman login's auth.json, and speaks plain HTTP to a registry at
// localhost:<port>, *.localhost, a loopback or a private address, HTTPS to
// any other (go-containerregistry's rules).
func Push(ctx context.Context, index v1.ImageIndex, ref string) (v1.Hash, error) {
	target, err := name.ParseReference(ref)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("image name %q: %w", ref, err)
	}
	digest, err := index.Digest()
	if err != nil {
		return v1.Hash{}, err
	}
	if err := remote.WriteIndex(target, index, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return v1.Hash{}, fmt.Errorf("pushing %s: %w", ref, err)
	}
	return digest, nil
}

// Attach pushes an OCI artifact manifest whose subject is an image of
// repository (registry/repository), with the blobs it names, by digest:
// what cosign does to attach a signature or an attestation. A registry
// without the referrers API gets the fallback tag sha256-<subject digest>
// (go-containerregistry keeps its index).
func Attach(ctx context.Context, repository string, manifest []byte, blobs map[string][]byte) (v1.Hash, error) {
	repo, err := name.NewRepository(repository)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("repository %q: %w", repository, err)
	}
	options := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)}
	for digest, data := range blobs {
		layer := static.NewLayer(data, types.MediaType("application/octet-stream"))
		if err := remote.WriteLayer(repo, layer, options...); err != nil {
			return v1.Hash{}, fmt.Errorf("pushing blob %s to %s: %w", digest, repository, err)
		}
	}
	digest, _, err := v1.SHA256(bytes.NewReader(manifest))
	if err != nil {
		return v1.Hash{}, err
	}
	if err := remote.Put(repo.Digest(digest.String()), rawManifest(manifest), options...); err != nil {
		return v1.Hash{}, fmt.Errorf("pushing artifact %s to %s: %w", digest, repository, err)
	}
	return digest, nil
}

// rawManifest is an OCI image manifest as bytes, for remote.Put.
type rawManifest []byte

func (m rawManifest) RawManifest() ([]byte, error) { return m, nil }

func (m rawManifest) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }

// Describe resolves ref (a tag or a digest) in its registry and returns
// it by digest with its manifest's descriptor.
func Describe(ctx context.Context, ref string) (name.Digest, v1.Descriptor, error) {
	parsed, err := name.ParseReference(ref)
	if err != nil {
		return name.Digest{}, v1.Descriptor{}, fmt.Errorf("reference %q: %w", ref, err)
	}
	desc, err := remote.Head(parsed, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain))
	if err != nil {
		return name.Digest{}, v1.Descriptor{}, fmt.Errorf("resolving %s: %w", ref, err)
	}
	return parsed.Context().Digest(desc.Digest.String()), *desc, nil
}

// AttachReferrers attaches the signature and attestations of refs to its
// subject in repository (registry/repository) and returns the digests of
// the manifests attached, in the order of refs.Bundles.
func AttachReferrers(ctx context.Context, repository string, refs release.Referrers) ([]v1.Hash, error) {
	artifacts, err := refs.Artifacts()
	if err != nil {
		return nil, err
	}
	digests := make([]v1.Hash, 0, len(artifacts))
	for _, a := range artifacts {
		d, err := Attach(ctx, repository, a.Manifest, a.Blobs)
		if err != nil {
			return digests, err
		}
		digests = append(digests, d)
	}
	if refs.Tag != nil {
		if err := PushTagSignature(ctx, repository, refs.Subject.Digest, refs.Tag.Payload, refs.Tag.Signature); err != nil {
			return digests, err
		}
	}
	return digests, nil
}

// Media type and annotation of a tag-form cosign signature.
const (
	simpleSigningMediaType = "application/vnd.dev.cosign.simplesigning.v1+json"
	signatureAnnotation    = "dev.cosignproject.cosign/signature"
)

// PushTagSignature pushes a signature of the image repository@digest in the
// tag form of cosign before v3: an image of one layer, the payload, whose
// annotation holds the signature, tagged sha256-<hex>.sig.
func PushTagSignature(ctx context.Context, repository, digest string, payload []byte, signature string) error {
	repo, err := name.NewRepository(repository)
	if err != nil {
		return fmt.Errorf("repository %q: %w", repository, err)
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: static.NewLayer(payload, simpleSigningMediaType),
		Annotations: map[string]string{signatureAnnotation: signature}})
	if err != nil {
		return err
	}
	tag := repo.Tag(strings.Replace(digest, ":", "-", 1) + ".sig")
	if err := remote.Write(tag, img, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return fmt.Errorf("pushing the signature %s: %w", tag, err)
	}
	return nil
}
