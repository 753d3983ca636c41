package engine

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

// foreignInstances counts, per type, the instances of the given managed
// types that do not belong to the scope's owner. Types the cluster does not serve count
// nothing.
func (s *ownerScope) foreignInstances(ctx context.Context, types []manifests.TypeInfo) (map[string]int, error) {
	if len(types) == 0 {
		return nil, nil
	}
	resources, err := s.a.resolveTypes(types)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, gvk := range resources {
		n, err := s.countForeign(ctx, gvk)
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
func (a *Applier) resolveTypes(types []manifests.TypeInfo) ([]schema.GroupVersionKind, error) {
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
			mapping, err := a.mapper.RESTMapping(schema.GroupKind{Group: t.Group, Kind: t.Kind})
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
			if served, err = a.servedKinds(); err != nil {
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
func (a *Applier) servedKinds() ([]schema.GroupVersionKind, error) {
	if a.target.Discovery == nil {
		return nil, fmt.Errorf("managed types with wildcards need a discovery client in the applier target")
	}
	lists, err := a.target.Discovery.ServerPreferredResources()
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

// countForeign lists the metadata of every instance of gvk and counts those
// without the scope owner's label. An identity whose informers are scoped to some
// namespaces (a tenant) and may not list cluster-wide counts in those
// namespaces: it can see no others.
func (s *ownerScope) countForeign(ctx context.Context, gvk schema.GroupVersionKind) (int, error) {
	count, err := s.countForeignIn(ctx, gvk, "")
	scope := live.Scope(s.a.target.Live)
	if !apierrors.IsForbidden(err) || len(scope) == 0 {
		return count, err
	}
	total := 0
	for _, ns := range scope {
		n, err := s.countForeignIn(ctx, gvk, ns)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// countForeignIn counts the instances of gvk in namespace (all namespaces
// when empty) without the scope owner's label.
func (s *ownerScope) countForeignIn(ctx context.Context, gvk schema.GroupVersionKind, namespace string) (int, error) {
	count := 0
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	for {
		err := s.a.target.Client.List(ctx, list, client.Limit(500), client.Continue(list.GetContinue()), client.InNamespace(namespace))
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return 0, nil // the type is no longer served: no instances can exist
		}
		if err != nil {
			return 0, fmt.Errorf("listing instances of %s %s: %w", gvk.GroupKind(), live.Where(namespace), err)
		}
		for _, item := range list.Items {
			if item.GetLabels()[s.a.OwnerLabel()] != s.owner.ID {
				count++
			}
		}
		if list.GetContinue() == "" {
			return count, nil
		}
	}
}

// describeBlocking renders counts as "2 instances of Widget.test.wavekit.dev".
func describeBlocking(counts map[string]int) string {
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
