package imagebuild

import (
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
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
