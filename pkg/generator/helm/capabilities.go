package helm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"helm.sh/helm/v3/pkg/chartutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// capabilityCache holds the .Capabilities discovered from one cluster.
//
// Discovery is not queried on every render. The cached value is reused while
// the context's discovery client is the same and the CRD fingerprint is the
// same: a hash of the names and resourceVersions of all
// CustomResourceDefinitions, listed as metadata through the context's client.
// In the operator that client is an informer-backed cache, so the check costs
// no API call; a CRD that is added, removed, changed or becomes Established
// changes the fingerprint and the next render discovers again. Without a
// client in the context, or when the list fails, the cache is kept until
// Generator.Invalidate is called. Other discovery changes (aggregated
// APIServices, a control plane upgrade) also need Invalidate.
type capabilityCache struct {
	mu          sync.Mutex
	valid       bool
	discovery   discovery.DiscoveryInterface
	fingerprint string
	caps        *chartutil.Capabilities
}

// Invalidate drops the cached .Capabilities; the next render reads them from
// the cluster's discovery again.
func (g *Generator) Invalidate() {
	g.caps.mu.Lock()
	defer g.caps.mu.Unlock()
	g.caps.valid = false
	g.caps.caps = nil
}

// capabilities returns .Capabilities for a render: discovered and cached when
// ctx carries a discovery client, otherwise Helm's defaults adjusted by the
// options (what `helm template` uses).
func (g *Generator) capabilities(ctx context.Context) (*chartutil.Capabilities, error) {
	dc, ok := manifests.DiscoveryFrom(ctx)
	if !ok {
		return g.defaultCaps, nil
	}
	fingerprint, crdGroups, known := crdFingerprint(ctx)
	if caps, ok := g.caps.lookup(dc, fingerprint, known); ok {
		return caps, nil
	}
	// No lock is held while discovery asks the API server: two renders that
	// miss at once both ask, and the later answer is kept.
	caps, err := discoverCapabilities(dc, g.opts.apiVersions)
	if err != nil {
		return nil, err
	}
	// Discovery may lag a CRD that is already Established; a result that
	// misses a CRD's group is used but not kept, so the next render asks again.
	g.caps.store(dc, fingerprint, caps, servesGroups(caps, crdGroups))
	return caps, nil
}

// lookup returns the cached .Capabilities if they were discovered through dc
// and the CRD fingerprint is unchanged (or unknown).
func (c *capabilityCache) lookup(dc discovery.DiscoveryInterface, fingerprint string, known bool) (*chartutil.Capabilities, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.valid && sameClient(c.discovery, dc) && (!known || fingerprint == c.fingerprint) {
		return c.caps, true
	}
	return nil, false
}

// store records what discovery returned; keep false leaves the cache invalid.
func (c *capabilityCache) store(dc discovery.DiscoveryInterface, fingerprint string, caps *chartutil.Capabilities, keep bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.valid, c.discovery, c.fingerprint, c.caps = keep, dc, fingerprint, caps
}

// servesGroups tells whether caps lists a version of every group.
func servesGroups(caps *chartutil.Capabilities, groups []string) bool {
	served := map[string]bool{}
	for _, gv := range caps.APIVersions {
		if group, _, found := strings.Cut(gv, "/"); found {
			served[group] = true
		}
	}
	for _, group := range groups {
		if !served[group] {
			return false
		}
	}
	return true
}

func sameClient(a, b discovery.DiscoveryInterface) bool {
	if a == nil || b == nil || !reflect.TypeOf(a).Comparable() || !reflect.TypeOf(b).Comparable() {
		return false
	}
	return a == b
}

var crdListKind = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinitionList"}

// crdFingerprint hashes the names and resourceVersions of the cluster's CRDs,
// read through the context's client, and returns their groups (a CRD's name
// is <plural>.<group>). known is false without a client or when the list
// fails.
func crdFingerprint(ctx context.Context) (fingerprint string, groups []string, known bool) {
	reader, ok := manifests.ClientFrom(ctx)
	if !ok {
		return "", nil, false
	}
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(crdListKind)
	if err := reader.List(ctx, list); err != nil {
		return "", nil, false
	}
	entries := make([]string, 0, len(list.Items))
	for i := range list.Items {
		entries = append(entries, list.Items[i].Name+"@"+list.Items[i].ResourceVersion)
		if _, group, found := strings.Cut(list.Items[i].Name, "."); found {
			groups = append(groups, group)
		}
	}
	sort.Strings(entries)
	sum := sha256.New()
	for _, e := range entries {
		sum.Write([]byte(e + "\n"))
	}
	return hex.EncodeToString(sum.Sum(nil)), groups, true
}

// discoverCapabilities reads the server version and API versions as Helm's
// install action does (action.Configuration.getCapabilities, GetVersionSet),
// with the version list sorted so that renders are deterministic.
func discoverCapabilities(dc discovery.DiscoveryInterface, extra []string) (*chartutil.Capabilities, error) {
	if cached, ok := dc.(discovery.CachedDiscoveryInterface); ok {
		cached.Invalidate()
	}
	version, err := dc.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("reading the Kubernetes version for .Capabilities: %w", err)
	}
	versions, err := versionSet(dc)
	if err != nil {
		return nil, err
	}
	return &chartutil.Capabilities{
		KubeVersion: chartutil.KubeVersion{Version: version.GitVersion, Major: version.Major, Minor: version.Minor},
		APIVersions: append(versions, extra...),
		HelmVersion: chartutil.DefaultCapabilities.HelmVersion,
	}, nil
}

// versionSet lists every group/version and group/version/Kind the server
// serves. Like Helm it tolerates groups whose discovery failed (an
// unavailable aggregated API) and falls back to Helm's default set when
// discovery returns nothing.
func versionSet(dc discovery.DiscoveryInterface) (chartutil.VersionSet, error) {
	groups, resources, err := dc.ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("reading API versions for .Capabilities: %w", err)
	}
	if len(groups) == 0 && len(resources) == 0 {
		return slices.Clone(chartutil.DefaultVersionSet), nil
	}
	seen := map[string]bool{}
	for _, g := range groups {
		for _, gv := range g.Versions {
			seen[gv.GroupVersion] = true
		}
	}
	for _, list := range resources {
		for _, r := range list.APIResources {
			seen[path.Join(list.GroupVersion, r.Kind)] = true
		}
	}
	versions := make([]string, 0, len(seen))
	for v := range seen {
		versions = append(versions, v)
	}
	sort.Strings(versions)
	return versions, nil
}

// defaultCapabilities is what `helm template` uses without a cluster:
// Helm's defaults, the kube version option and extra API versions.
func defaultCapabilities(o *options) *chartutil.Capabilities {
	caps := chartutil.DefaultCapabilities.Copy()
	if o.kubeVersion != nil {
		caps.KubeVersion = *o.kubeVersion
	}
	caps.APIVersions = append(slices.Clone(caps.APIVersions), o.apiVersions...)
	return caps
}
