package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The CRD policy of the CustomResourceDefinitions a component ships
// (manifests.CRDPolicy, from spec.crds or the object's <name>/crd-policy):
// CreateReplace creates and updates them; Create creates missing ones and
// never updates one (decide); Skip leaves them out of the pass (skipCRDs).
// Whatever the policy, an update that would drop a version the API server
// still stores objects in is refused before the pass writes anything
// (checkStoredVersions).

// skipCRDs returns objs without the CRDs the pass leaves alone, and their
// keys: those whose policy is Skip, and those whose policy is Create that
// exist already but are not in the inventory (another owner's, or a
// cluster's own). They are neither created, updated nor deleted; one an
// earlier pass recorded leaves the inventory and stays in the cluster. A
// Create CRD without an inventory item costs one read.
func (s *ownerScope) skipCRDs(ctx context.Context, objs []*desired, items map[manifests.ObjectKey]*manifests.InventoryItem) (kept []*desired, skipped []manifests.ObjectKey, err error) {
	kept = objs[:0:0]
	for _, d := range objs {
		skip := kinds.IsCRD(d.gvk.Group, d.gvk.Kind) && d.policies.CRD == manifests.CRDSkip
		if kinds.IsCRD(d.gvk.Group, d.gvk.Kind) && d.policies.CRD == manifests.CRDCreate && items[d.key] == nil {
			live, err := s.a.getDirect(ctx, d)
			if err != nil {
				return nil, nil, err
			}
			skip = live != nil
		}
		if skip {
			skipped = append(skipped, d.key)
			continue
		}
		kept = append(kept, d)
	}
	return kept, skipped, nil
}

// forget drops the items of keys from the inventory without touching their
// objects.
func (r *pass) forget(keys []manifests.ObjectKey) {
	for _, key := range keys {
		delete(r.items, key)
	}
}

// checkStoredVersions refuses, as an ObjectError of each CRD (a
// manifests.UserError), a render whose CRD would drop a version that the
// live CRD's status.storedVersions still lists: objects stored in it would
// become unreadable. Only CRDs whose render changed since the inventory's
// record, or that it does not record, are read (one request each), so a pass
// that changes nothing makes no request.
func (s *ownerScope) checkStoredVersions(ctx context.Context, objs []*desired, items map[manifests.ObjectKey]*manifests.InventoryItem) error {
	var errs []error
	for _, d := range objs {
		if !kinds.IsCRD(d.gvk.Group, d.gvk.Kind) || d.policies.CRD != manifests.CRDCreateReplace {
			continue
		}
		if item := items[d.key]; item != nil && item.Digest == d.digest {
			continue
		}
		live, err := s.a.getDirect(ctx, d)
		if err != nil {
			return err
		}
		if live == nil {
			continue
		}
		if dropped := strings.Join(droppedStoredVersions(d.object, live), ", "); dropped != "" {
			errs = append(errs, api.Refused(d.key, fmt.Errorf("would drop version %s, which status.storedVersions still lists: "+
				"objects stored in it would become unreadable. Migrate them to a served version first (a storage version migration, "+
				"or read and write each object again), then remove %s from the CRD's status.storedVersions, then apply this render",
				dropped, dropped)))
		}
	}
	return errors.Join(errs...)
}

// droppedStoredVersions lists the versions of live's status.storedVersions
// that rendered no longer has in spec.versions.
func droppedStoredVersions(rendered, live *unstructured.Unstructured) []string {
	stored, _, _ := unstructured.NestedStringSlice(live.Object, "status", "storedVersions")
	versions, _, _ := unstructured.NestedSlice(rendered.Object, "spec", "versions")
	var names []string
	for _, v := range versions {
		if m, ok := v.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				names = append(names, name)
			}
		}
	}
	var dropped []string
	for _, version := range stored {
		if !slices.Contains(names, version) {
			dropped = append(dropped, version)
		}
	}
	return dropped
}
