package foreign

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/live"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Counter counts the instances of an owner's managed types (the kinds its
// CRDs and APIServices serve) that another owner, or none, made: while one
// exists, deleting those types would delete it too.
type Counter struct {
	Client client.Reader // lists the instances' metadata
	Mapper meta.RESTMapper
	// Discovery lists the kinds the cluster serves, for types with
	// wildcards; nil refuses them.
	Discovery discovery.DiscoveryInterface
	// Scope is the namespaces an identity's informers are scoped to (a
	// tenant): an identity that may not list cluster-wide counts in these.
	Scope []string
	// OwnerLabel is the label that holds an object's owner.
	OwnerLabel string
}

// Instances counts, per type, the instances of the given managed types
// that do not belong to owner. Types the cluster does not serve count
// nothing.
func (c Counter) Instances(ctx context.Context, owner string, types []manifests.TypeInfo) (map[string]int, error) {
	if len(types) == 0 {
		return nil, nil
	}
	resources, err := c.resolveTypes(types)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, gvk := range resources {
		n, err := c.count(ctx, owner, gvk)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			counts[gvk.Kind+"."+gvk.Group] += n
		}
	}
	return counts, nil
}

// resolveTypes turns type patterns into the kinds the cluster serves.
func (c Counter) resolveTypes(types []manifests.TypeInfo) ([]schema.GroupVersionKind, error) {
	seen := map[schema.GroupKind]bool{}
	var result []schema.GroupVersionKind
	add := func(gvk schema.GroupVersionKind) {
		if !seen[gvk.GroupKind()] {
			seen[gvk.GroupKind()] = true
			result = append(result, gvk)
		}
	}
	var served []schema.GroupVersionKind
	for _, t := range types {
		if !strings.Contains(t.Group, "*") && t.Kind != "*" {
			mapping, err := c.Mapper.RESTMapping(schema.GroupKind{Group: t.Group, Kind: t.Kind})
			if meta.IsNoMatchError(err) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("finding the resource of %s.%s: %w", t.Kind, t.Group, err)
			}
			add(mapping.GroupVersionKind)
			continue
		}
		if served == nil {
			var err error
			if served, err = c.servedKinds(); err != nil {
				return nil, err
			}
		}
		for _, gvk := range served {
			if _, ok := kinds.ServedType([]manifests.TypeInfo{t}, gvk.Group, gvk.Kind); ok {
				add(gvk)
			}
		}
	}
	return result, nil
}

// servedKinds lists the listable kinds the cluster serves (preferred versions).
func (c Counter) servedKinds() ([]schema.GroupVersionKind, error) {
	if c.Discovery == nil {
		return nil, fmt.Errorf("managed types with wildcards need a discovery client in the applier target")
	}
	lists, err := c.Discovery.ServerPreferredResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("discovering served resources: %w", err)
	}
	var kinds []schema.GroupVersionKind
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
				continue
			}
			kinds = append(kinds, gv.WithKind(r.Kind))
		}
	}
	return kinds, nil
}

// count lists the metadata of every instance of gvk and counts those
// without owner's label. An identity whose informers are scoped to some
// namespaces (a tenant) and may not list cluster-wide counts in those
// namespaces: it can see no others.
func (c Counter) count(ctx context.Context, owner string, gvk schema.GroupVersionKind) (int, error) {
	count, err := c.countIn(ctx, owner, gvk, "")
	if !apierrors.IsForbidden(err) || len(c.Scope) == 0 {
		return count, err
	}
	total := 0
	for _, ns := range c.Scope {
		n, err := c.countIn(ctx, owner, gvk, ns)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// countIn counts the instances of gvk in namespace (all namespaces when
// empty) without owner's label.
func (c Counter) countIn(ctx context.Context, owner string, gvk schema.GroupVersionKind, namespace string) (int, error) {
	count := 0
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	for {
		err := c.Client.List(ctx, list, client.Limit(500), client.Continue(list.GetContinue()), client.InNamespace(namespace))
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return 0, nil // the type is no longer served: no instances can exist
		}
		if err != nil {
			return 0, fmt.Errorf("listing instances of %s %s: %w", gvk.GroupKind(), live.Where(namespace), err)
		}
		for _, item := range list.Items {
			if item.GetLabels()[c.OwnerLabel] != owner {
				count++
			}
		}
		if list.GetContinue() == "" {
			return count, nil
		}
	}
}

// Describe renders counts as "2 instances of Widget.test.wavekit.dev".
func Describe(counts map[string]int) string {
	var parts []string
	for t, n := range counts {
		noun := "instances"
		if n == 1 {
			noun = "instance"
		}
		parts = append(parts, fmt.Sprintf("%d foreign %s of %s", n, noun, t))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ") + " exist"
}
