package operator

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// DefinitionSources resolves the sources of ComponentDefinitions and
// renders the instances of their kinds with the resolver of Components:
// the same fetchers, caches, verification and allow-lists.
type DefinitionSources struct {
	r *resolver
}

// Resolved is what a definition's source resolved to.
type Resolved struct {
	// Dir is the source's directory (a chart's, a folder's), to read its
	// schema from. It lives in the fetch cache: read it at once.
	Dir string
	// Pinned is the source fixed to what it resolved to: a chart's exact
	// version, a Git repository's commit.
	Pinned v1alpha1.DefinitionSource
	// Resolved says what that is.
	Resolved v1alpha1.ResolvedSource
}

// Resolve fetches what src names, as the operator itself (src's Secrets
// are read in src.SecretsNamespace), checks it against the operator's
// allow-list and its signature when src asks for one, and pins it. owner
// names the definition, for messages and caches; its annotations may ask
// for a look at the repository now (<operator>/reconcile-requested-at).
func (s *DefinitionSources) Resolve(ctx context.Context, owner string, src v1alpha1.DefinitionSource, annotations map[string]string) (Resolved, error) {
	c := definitionComponent(owner, src)
	c.Annotations = annotations
	if err := s.allowed(ctx, c); err != nil {
		return Resolved{}, err
	}
	ctx, reported := manifests.WithSourceReport(ctx)
	gen, err := s.r.generatorFor(ctx, c, s.r.readers.own)
	if err != nil {
		return Resolved{}, err
	}
	info := reported()
	if info == nil {
		info = &manifests.SourceInfo{Revision: src.Source, Digest: servedDigest(gen)}
	}
	out := Resolved{Dir: dirOf(gen), Pinned: *src.DeepCopy(),
		Resolved: v1alpha1.ResolvedSource{URL: info.URL, Revision: info.Revision, Digest: info.Digest, Verified: info.Verified}}
	switch {
	case src.Chart != nil:
		out.Pinned.Chart.Version = info.Revision
	case src.Git != nil:
		_, commit, _ := strings.Cut(info.Revision, "sha1:")
		out.Pinned.Git.Ref = &v1alpha1.GitRef{Commit: commit}
	}
	return out, nil
}

// allowed checks the URL of a definition's source against the operator's
// --allowed-sources; a Namespace's list applies to the instances of its
// namespace, when they render.
func (s *DefinitionSources) allowed(ctx context.Context, c *v1alpha1.Component) error {
	if s.r.policy == nil || !hasURLSource(c, false) {
		return nil
	}
	var field, url string
	switch {
	case c.Spec.Chart != nil:
		field, url = chartURL(c.Spec.Chart)
	case c.Spec.Git != nil:
		field, url = "spec.git.url", c.Spec.Git.URL
	default:
		var err error
		if field, url, err = s.r.flux.originURL(ctx, c); err != nil || url == "" {
			return err
		}
	}
	field = "spec.source." + strings.TrimPrefix(field, "spec.")
	global := s.r.policy.global
	return refusal(global.Check(url), field, url, "--allowed-sources of the operator", global)
}

// definitionComponent is the Component the resolver fetches a definition's
// source for: in the namespace of its Secrets, named after the definition.
func definitionComponent(owner string, src v1alpha1.DefinitionSource) *v1alpha1.Component {
	return &v1alpha1.Component{
		ObjectMeta: metav1.ObjectMeta{Namespace: src.SecretsNamespace, Name: owner},
		Spec: v1alpha1.ComponentSpec{Source: src.Source, Chart: src.Chart.DeepCopy(), Git: src.Git.DeepCopy(),
			SourceRef: src.SourceRef.DeepCopy(), Path: src.Path},
	}
}

func dirOf(gen manifests.Generator) string {
	if g, ok := gen.(rooted); ok {
		if g.dir != "" {
			return g.dir
		}
		return g.root
	}
	return ""
}

// servedDigest is the digest of a served source's content, the last word
// of its identity.
func servedDigest(gen manifests.Generator) string {
	fields := strings.Fields(identityOf(gen))
	if len(fields) == 0 {
		return ""
	}
	return fields[len(fields)-1]
}

// Generator renders a Component with the resolver; an instance of a
// defined kind is rendered as the Component it stands for (in the render's
// ComponentInfo), with its revision's source pinned in the context
// (WithPinnedSource).
func (s *DefinitionSources) Generator() manifests.Generator { return s.r }

// PinnedSource is the source of a definition's revision, as its instances
// render it.
type PinnedSource struct {
	// Definition names the definition, Revision the revision.
	Definition string
	Revision   int64
	// Source is the revision's pinned source.
	Source v1alpha1.DefinitionSource
	// Digest is what the source must still hold.
	Digest string
	// URL and ArtifactRevision are the artifact of a Flux source, which is
	// fetched itself rather than the Flux source's newest.
	URL, ArtifactRevision string
}

type pinnedKey struct{}

// WithPinnedSource makes the renders in ctx render pin instead of the
// Component's own source.
func WithPinnedSource(ctx context.Context, pin PinnedSource) context.Context {
	return context.WithValue(ctx, pinnedKey{}, pin)
}

// pinned renders the pinned source of ctx, if it holds one: fetched as the
// operator (its Secrets are the definition's), and refused unless its
// content is still what the revision was made of.
func (r *resolver) pinned(ctx context.Context) (manifests.Generator, bool, error) {
	pin, ok := ctx.Value(pinnedKey{}).(PinnedSource)
	if !ok {
		return nil, false, nil
	}
	c := definitionComponent(pin.Definition, pin.Source)
	// Below, the revision's source is resolved as a definition's: without
	// the pin, which would send it back here.
	inner, reported := manifests.WithSourceReport(context.WithValue(ctx, pinnedKey{}, nil))
	var gen manifests.Generator
	var err error
	if pin.Source.SourceRef != nil {
		gen, err = r.pinnedArtifact(inner, pin)
	} else {
		if c.Spec.Chart != nil {
			c.Spec.Chart.Verify = nil // verified when the revision was made; the digest is checked below
		}
		if c.Spec.Git != nil {
			c.Spec.Git.Verify = nil
		}
		gen, err = r.generatorFor(inner, c, r.readers.own)
	}
	if err != nil {
		return nil, true, err
	}
	info := reported()
	digest := servedDigest(gen)
	if info != nil {
		digest = info.Digest
		manifests.ReportSource(ctx, *info)
	}
	if digest != pin.Digest {
		return nil, true, &manifests.UserError{Err: fmt.Errorf("the source of revision %d of ComponentDefinition %s holds %s now, not %s as when the revision was made: a new revision will be made of it",
			pin.Revision, pin.Definition, digest, pin.Digest)}
	}
	return gen, true, nil
}

// pinnedArtifact fetches the artifact a revision was made of, whatever
// the Flux source serves now.
func (r *resolver) pinnedArtifact(ctx context.Context, pin PinnedSource) (manifests.Generator, error) {
	fetched, err := r.fetcher.Artifact(ctx, fetch.ArtifactRequest{URL: pin.URL, Digest: pin.Digest, Revision: pin.ArtifactRevision})
	if err != nil {
		return nil, fetchError(fmt.Errorf("the artifact of revision %d of ComponentDefinition %s: %w", pin.Revision, pin.Definition, err))
	}
	dir, err := pathIn(fetched.Dir, pin.Source.Path)
	if err != nil {
		return nil, err
	}
	manifests.ReportSource(ctx, manifests.SourceInfo{URL: pin.URL, Revision: pin.ArtifactRevision, Digest: fetched.Digest})
	return r.load(fetched.Digest+"\x00"+dir, "artifact "+fetched.Digest+" "+pin.Source.Path, dir, fetched.Dir)
}
