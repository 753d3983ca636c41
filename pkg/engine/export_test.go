package engine

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// DigestOf returns the digest Apply records for obj when an operator named
// prefix renders it for a component of the given generation: the object is
// normalised and its policies parsed as Apply does, without a cluster.
func DigestOf(prefix string, generation int64, obj *unstructured.Unstructured) (string, error) {
	p := &plan.Preparer{Prefix: prefix, Generation: generation, Defaults: manifests.Defaults{}.WithFallbacks()}
	d, err := p.Normalise(0, obj)
	if err != nil {
		return "", err
	}
	d.Policies, err = manifests.ParsePolicies(prefix, d.Key.String(), d.Object.GetAnnotations(), p.Defaults)
	if err != nil {
		return "", err
	}
	if err := p.Finish(d); err != nil {
		return "", err
	}
	return d.Digest, nil
}

// Tombstones returns how many deleted objects the applier still reads as
// being deleted, waiting for its cache to see them go.
func Tombstones(a *Applier) int {
	return a.live.Tombstones()
}
