package operator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/lru"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/dependency"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
	"github.com/wavekit-dev/wavekit/pkg/fetch/verify"
	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/generator/patch"
	"github.com/wavekit-dev/wavekit/pkg/generator/source"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// loadedGenerators is how many fetched sources stay loaded in memory.
const loadedGenerators = 64

// resolver renders a Component from wherever its spec points: a source
// served from start-up, a chart of a repository, or a Flux artifact; with
// the values of valuesFrom and spec.values, then spec.patches.
type resolver struct {
	name    string
	served  map[string]manifests.Generator
	fetcher *fetch.Fetcher
	readers *readers
	flux    *fluxSources
	loaded  *lru.Cache // digest and path → manifests.Generator
	// verified remembers the charts verified, by digest and key material.
	verified *verify.Cache
	// trusted remembers each Component's verifier between passes.
	trusted *trustedKeys
	requeue time.Duration
	// beforeValues runs before valuesFrom is read: it watches what it reads.
	beforeValues func(context.Context, *v1alpha1.Component) error
	// localArtifact, when set, stands for the artifact of every
	// spec.sourceRef (a preview's --path).
	localArtifact string
	// policy, when set, refuses sources that are not allowed.
	policy *sourcePolicy
	// git fetches the trees of spec.git and valuesFrom's Git files;
	// gitKeys remembers their verification keys.
	git     *git.Source
	gitKeys *gitKeyRings
	// deps brings the dependencies charts list and do not hold; chartDeps
	// is the helm.DependencyResolver every loaded chart renders with.
	deps      *dependency.Resolver
	chartDeps *chartDependencies
}

// newResolver returns the resolver; chartDeps, which the served sources
// were loaded with, is given it.
func newResolver(name string, served map[string]manifests.Generator, fetcher *fetch.Fetcher, readers *readers, flux *fluxSources, requeue time.Duration, chartDeps *chartDependencies) *resolver {
	if requeue <= 0 {
		requeue = component.DefaultRequeueInterval
	}
	r := &resolver{name: name, served: served, fetcher: fetcher, readers: readers, flux: flux, loaded: lru.New(loadedGenerators), requeue: requeue,
		verified: verify.NewCache(0), trusted: newTrustedKeys(), gitKeys: newGitKeyRings(), deps: dependency.NewResolver(fetcher), chartDeps: chartDeps}
	chartDeps.r = r
	return r
}

// Generate renders the Component in the context.
func (r *resolver) Generate(ctx context.Context, namespace, name string, _ manifests.Parameters) ([]client.Object, error) {
	c, reader, err := r.componentAndReader(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.sourceAllowed(ctx, c); err != nil {
		return nil, err
	}
	gen, err := r.generatorFor(ctx, c, reader)
	if err != nil {
		return nil, err
	}
	if r.beforeValues != nil && len(c.Spec.ValuesFrom) > 0 {
		if err := r.beforeValues(ctx, c); err != nil {
			return nil, err
		}
	}
	vals, err := r.values(ctx, reader, c)
	if err != nil {
		return nil, err
	}
	objects, err := gen.Generate(ctx, namespace, name, vals)
	if err == nil {
		objects, err = r.decrypted(ctx, c, reader, gen, objects)
	}
	if err != nil || len(c.Spec.Patches) == 0 {
		return objects, err
	}
	objects, err = patch.Apply(objects, patches(c.Spec.Patches))
	if err != nil {
		return nil, fmt.Errorf("spec.patches: %w", err)
	}
	return objects, nil
}

// componentAndReader is the Component of the render in ctx and the reader
// of its identity.
func (r *resolver) componentAndReader(ctx context.Context) (*v1alpha1.Component, client.Reader, error) {
	c, err := componentFrom(ctx)
	if err != nil {
		return nil, nil, err
	}
	reader, err := r.readers.forComponent(c)
	return c, reader, err
}

func componentFrom(ctx context.Context) (*v1alpha1.Component, error) {
	info, ok := manifests.ComponentInfoFrom(ctx)
	if !ok {
		return nil, fmt.Errorf("no component in the render context")
	}
	c, ok := info.Object.(*v1alpha1.Component)
	if !ok {
		return nil, fmt.Errorf("render context holds %T, not a Component", info.Object)
	}
	return c, nil
}

// generatorFor returns the generator of c's source, fetching it if need be.
func (r *resolver) generatorFor(ctx context.Context, c *v1alpha1.Component, reader client.Reader) (manifests.Generator, error) {
	if gen, ok, err := r.pinned(ctx); ok {
		return gen, err
	}
	switch {
	case c.Spec.Chart != nil:
		return r.chart(ctx, c, reader)
	case c.Spec.SourceRef != nil:
		return r.artifact(ctx, c)
	case c.Spec.Git != nil:
		return r.gitSource(ctx, c, reader)
	}
	gen, ok := r.served[c.Spec.Source]
	if !ok {
		return nil, fmt.Errorf("source %q is not served (served: %s)", c.Spec.Source, strings.Join(sortedKeys(r.served), ", "))
	}
	return gen, nil
}

// chart fetches spec.chart (the repository is asked again for new versions
// at the requeue interval, not more often, or at once for a reconcile
// request: requestMaxAge) and loads it.
func (r *resolver) chart(ctx context.Context, c *v1alpha1.Component, reader client.Reader) (manifests.Generator, error) {
	spec := c.Spec.Chart
	creds, err := chartCredentials(ctx, reader, c)
	if err != nil {
		return nil, err
	}
	maxAge := r.requeue
	if d := c.GetRequeueInterval(); d > 0 {
		maxAge = d
	}
	maxAge = requestMaxAge(c, r.name, maxAge, time.Now())
	verifier, err := r.chartVerifier(ctx, reader, c, maxAge)
	if err != nil {
		return nil, err
	}
	fetched, err := r.fetcher.Chart(ctx, fetch.ChartRequest{
		Repository: spec.Repository, Name: spec.Name, Version: spec.Version,
		Credentials: creds, Insecure: spec.Insecure, MaxAge: maxAge, Verifier: verifier,
	})
	if err != nil {
		return nil, fetchError(fmt.Errorf("spec.chart: %w", err))
	}
	manifests.ReportSource(ctx, manifests.SourceInfo{URL: fetched.URL, Revision: fetched.Revision, Digest: fetched.Digest, Verified: fetched.Verified})
	return r.load(fetched.Digest, "chart "+fetched.Digest, fetched.Dir, fetched.Dir)
}

// requestMaxAge bounds how old the versions of c's chart repository may be
// while c carries a reconcile request that no pass has handled yet (its
// annotation <operator>/reconcile-requested-at, as a Receiver or wavekit
// reconcile sets it): no older than the request, so that a chart published
// just before it (the push a webhook announces) is found now rather than at
// the requeue interval, and the passes of many Components asked at once
// share one look at the repository. A value that is not a time asks the
// repository again.
func requestMaxAge(c *v1alpha1.Component, operator string, maxAge time.Duration, now time.Time) time.Duration {
	requested := c.Annotations[manifests.Key(operator, component.AnnotationReconcileRequestedAt)]
	if requested == "" || requested == c.Status.LastHandledReconcileAt {
		return maxAge
	}
	at, err := time.Parse(time.RFC3339Nano, requested)
	if err != nil {
		return 0
	}
	return min(maxAge, max(now.Sub(at), 0))
}

// artifact fetches the artifact of spec.sourceRef and loads spec.path in it.
func (r *resolver) artifact(ctx context.Context, c *v1alpha1.Component) (manifests.Generator, error) {
	if r.localArtifact != "" {
		dir, err := pathIn(r.localArtifact, c.Spec.Path)
		if err != nil {
			return nil, err
		}
		return r.load("local\x00"+dir, "local "+dir, dir, r.localArtifact)
	}
	a, err := r.flux.artifact(ctx, c)
	if err != nil {
		return nil, err
	}
	fetched, err := r.fetcher.Artifact(ctx, fetch.ArtifactRequest{URL: a.URL, Digest: a.Digest, Revision: a.Revision})
	if err != nil {
		return nil, fetchError(fmt.Errorf("spec.sourceRef: artifact of %s %s: %w", c.Spec.SourceRef.Kind, c.Spec.SourceRef.Name, err))
	}
	dir, err := pathIn(fetched.Dir, c.Spec.Path)
	if err != nil {
		return nil, err
	}
	manifests.ReportSource(ctx, manifests.SourceInfo{URL: a.URL, Revision: a.Revision, Digest: fetched.Digest})
	return r.load(fetched.Digest+"\x00"+dir, "artifact "+fetched.Digest+" "+c.Spec.Path, dir, fetched.Dir)
}

// load returns the generator of dir, loaded once per key; root bounds the
// bases a kustomization may use, and identity names the source for the
// render's inputs.
func (r *resolver) load(key, identity, dir, root string) (manifests.Generator, error) {
	if gen, ok := r.loaded.Get(key); ok {
		return gen.(manifests.Generator), nil
	}
	gen, _, err := source.Detect(dir, source.WithOperatorName(r.name), source.WithKustomizeRoot(root),
		source.WithHelmOptions(helm.WithDependencies(r.chartDeps), helm.WithSourceRoot(root)))
	if err != nil {
		return nil, &manifests.UserError{Err: err}
	}
	loaded := rooted{Generator: gen, root: root, dir: dir, identity: identity}
	r.loaded.Add(key, loaded)
	return loaded, nil
}

// pathIn returns spec.path inside an artifact's root, which must stay
// inside it. Without a path, an artifact that holds nothing but one chart
// directory (a Flux HelmChart's) is that chart.
func pathIn(root, path string) (string, error) {
	if path == "" {
		return singleChart(root), nil
	}
	dir := filepath.Join(root, filepath.FromSlash(path))
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &manifests.UserError{Err: fmt.Errorf("spec.path %s leaves the artifact", path)}
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", &manifests.UserError{Err: fmt.Errorf("spec.path %s: no such directory in the artifact", path)}
	}
	return dir, nil
}

func singleChart(root string) string {
	entries, err := os.ReadDir(root)
	if err != nil || len(entries) != 1 || !entries[0].IsDir() {
		return root
	}
	dir := filepath.Join(root, entries[0].Name())
	if _, err := os.Stat(filepath.Join(dir, "Chart.yaml")); err != nil {
		return root
	}
	return dir
}

// fetchError retries what may pass (the network, a server error) and
// reports the rest as the input's, which only a change fixes.
func fetchError(err error) error {
	if failed, ok := verificationFailed(err); ok {
		return failed
	}
	if fetch.IsTransient(err) {
		return component.Retriable(err, 0)
	}
	return &manifests.UserError{Err: err}
}

// readError retries a failed read, unless it was forbidden: the
// Component's identity may not read what it names, which only a change of
// the Component or of the RBAC fixes.
func readError(err error) error {
	if apierrors.IsForbidden(err) {
		return err
	}
	return component.Retriable(err, 0)
}

// chartCredentials reads spec.chart.secretRef: username, password and,
// optionally, ca.crt.
func chartCredentials(ctx context.Context, reader client.Reader, c *v1alpha1.Component) (*fetch.Credentials, error) {
	ref := c.Spec.Chart.SecretRef
	if ref == nil {
		return nil, nil
	}
	data, err := readSecret(ctx, reader, c.Namespace, "spec.chart.secretRef", ref.Name, userError)
	if err != nil {
		return nil, err
	}
	creds := &fetch.Credentials{Username: string(data["username"]), Password: string(data["password"]), CA: data["ca.crt"]}
	if (creds.Username == "") != (creds.Password == "") {
		return nil, &manifests.UserError{Err: fmt.Errorf("spec.chart.secretRef: Secret %s needs both username and password, or neither", ref.Name)}
	}
	return creds, nil
}

// patches converts spec.patches.
func patches(in []v1alpha1.Patch) []patch.Patch {
	out := make([]patch.Patch, len(in))
	for i, p := range in {
		out[i] = patch.Patch{Patch: p.Patch, Target: p.Target.DeepCopy()}
	}
	return out
}
