package manifests

import "context"

// InputsDeclarer is a Generator that declares what its render depends on
// besides the component: a fetched chart's digest, values read from the
// cluster, files loaded at start. A component reconciler renders again only
// when the digest of a component's inputs changes — its UID, generation,
// spec and placement, a reconcile request, and what RenderInputs returns —
// and otherwise applies the objects of its last render, as Helm and Flux do,
// so that random or generated output (randAlphaNum, genCA, uuidv4, now)
// stays as it was first rendered.
//
// A Generator that does not declare its inputs is taken to depend on the
// component and on the operator's own program: it renders again when the
// component changes, on a reconcile request, and once after the operator's
// executable changes (a new build or release).
type InputsDeclarer interface {
	Generator
	// RenderInputs returns a string that changes whenever the render of
	// parameters would, apart from what the reconciler already takes
	// (the component's UID, generation, spec and placement): typically a
	// digest of the source's content and of the values read for it. It
	// is called on every pass, with the same context as Generate, so it
	// should be cheap: read from caches, fetch only what changed. An
	// error fails the pass as a failed render does; nothing is applied.
	RenderInputs(ctx context.Context, namespace, name string, parameters Parameters) (string, error)
}
