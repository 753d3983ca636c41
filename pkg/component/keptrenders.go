package component

import (
	"context"
	"errors"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/keptrender"
)

// The renders a reconciler keeps (package keptrender): the current render
// of each component and its last Ready render, in Secrets of the
// component's namespace, sealed with a key of the operator's own Secret.
const (
	// RenderSecretType is the type of the Secrets that keep renders.
	RenderSecretType = keptrender.SecretType
	// RenderLimit bounds a kept render, gzipped and sealed: a Secret holds 1 MiB.
	RenderLimit = keptrender.Limit
	// ReasonRenderedAgain is the reason of the Warning Event of a pass that
	// rendered again because the render it kept could not be read.
	ReasonRenderedAgain = "RenderedAgain"
	// AnnotationRotateRenderKey on the key Secret asks for a new key: any
	// new value asks again.
	AnnotationRotateRenderKey = keptrender.AnnotationRotateRequested
)

// podNamespaceFile holds the namespace of a pod's service account.
const podNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// OwnNamespace is the operator's own namespace: $POD_NAMESPACE, else its
// pod's, else "default" (an operator outside a pod should say where its
// key goes: ReconcilerOptions.RenderKey).
func OwnNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if ns, err := os.ReadFile(podNamespaceFile); err == nil && strings.TrimSpace(string(ns)) != "" {
		return strings.TrimSpace(string(ns))
	}
	return metav1.NamespaceDefault
}

// DefaultRenderKey is where an operator named name keeps the keys of its
// kept renders unless told otherwise: the Secret <name>-render-key of its
// own namespace (OwnNamespace).
func DefaultRenderKey(name string) types.NamespacedName {
	const suffix = "-render-key"
	if len(name)+len(suffix) > 253 {
		name = strings.TrimRight(name[:253-len(suffix)], ".-")
	}
	return types.NamespacedName{Namespace: OwnNamespace(), Name: name + suffix}
}

// setupKeptRenders makes the memory of renders, and returns what follows
// the key Secret while the replica leads (until its context ends): a new
// key seals every kept render again, in a pass of each component queued
// behind every change. The Reconcilers of one manager (the served kinds')
// share the keys and their one watch.
func (r *Reconciler[T]) setupKeptRenders(mgr ctrl.Manager) func(context.Context) error {
	keys, release := keptrender.Shared(mgr.GetConfig(), r.client, r.apiReader, r.opts.RenderKey)
	r.renders = keptrender.NewStore(r.client, r.apiReader, keys)
	r.current = keptrender.NewCurrents(r.renders)
	return func(ctx context.Context) error {
		defer release()
		remove := keys.OnRotate(func() {
			go func() { // never in the caller's way: a pass may be the one that saw the new key
				for _, id := range r.current.IDs() {
					select {
					case r.resyncs <- event.GenericEvent{Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: id.Namespace, Name: id.Name}}}:
					case <-ctx.Done():
						return
					}
				}
			}()
		})
		defer remove()
		return keys.Follow(ctx, mgr.GetConfig(), mgr.GetLogger().WithName("render-keys"))
	}
}

// currentRender returns the current render of the pass's component when
// it was rendered from inputs (keptrender.Currents.Get), and why it is to
// be rendered again when a render kept for those inputs cannot be read: a
// Warning Event says so, and the Ready message while the new render is
// current (keptrender.Current.RenderedAgain).
func (p *pass) currentRender(ctx context.Context, gvk schema.GroupVersionKind, inputs string) (keptrender.Current, bool, string, error) {
	look := keptrender.Lookup{Inputs: inputs, MayBeKept: p.mayHaveKept()}
	if att := p.component.GetStatus().Attempt; att != nil {
		look.Applied = att.RenderDigest
	}
	if good := p.component.GetStatus().LastGoodRender; good != nil {
		look.LastGood = good.RenderDigest
	}
	cur, found, err := p.r.current.Get(ctx, p.id, p.component, gvk, look)
	var unreadable *keptrender.UnreadableError
	if !errors.As(err, &unreadable) {
		return cur, found, "", err
	}
	note := "rendered again, since " + unreadable.Error()
	if p.r.recorder != nil {
		p.r.recorder.Eventf(p.component, nil, "Warning", ReasonRenderedAgain, "Render", "%s", note)
	}
	return keptrender.Current{}, false, note, nil
}

// resealLastGood seals the component's last Ready render again when a
// rotation made a new key (keptrender.Store.Reseal). What fails is logged:
// the render stays readable with the previous key until the next rotation.
func (p *pass) resealLastGood(ctx context.Context) {
	good := p.component.GetStatus().LastGoodRender
	if good == nil || good.Secret == "" {
		return
	}
	if err := p.r.renders.Reseal(ctx, p.id, good.Secret, good.RenderDigest); err != nil {
		log.FromContext(ctx).Error(err, "sealing the render kept for a rollback with the new key")
	}
}

// joinNotes joins what the Ready message adds about the render.
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}
