package engine

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// DigestOf returns the digest Apply records for obj when an operator named
// prefix renders it for a component of the given generation: the object is
// normalised and its policies parsed as Apply does, without a cluster.
func DigestOf(prefix string, generation int64, obj *unstructured.Unstructured) (string, error) {
	p := &preparer{prefix: prefix, generation: generation, defaults: manifests.Defaults{}.WithFallbacks()}
	d, err := p.normalise(0, obj)
	if err != nil {
		return "", err
	}
	d.policies, err = manifests.ParsePolicies(prefix, d.key.String(), d.object.GetAnnotations(), p.defaults)
	if err != nil {
		return "", err
	}
	if err := p.finish(d); err != nil {
		return "", err
	}
	return d.digest, nil
}

// Tombstones returns how many deleted objects the applier still reads as
// being deleted, waiting for its cache to see them go.
func Tombstones(a *Applier) int {
	return a.live.Tombstones()
}
