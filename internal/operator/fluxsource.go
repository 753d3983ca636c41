package operator

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// fluxGroup is the API group of Flux's source-controller.
const fluxGroup = "source.toolkit.fluxcd.io"

// watchStart bounds how long a reconcile waits for a new informer to list.
const watchStart = 10 * time.Second

// artifact is what a Flux source's status.artifact says.
type artifact struct {
	URL, Digest, Revision string
}

// fluxSources reads the artifacts of Flux source objects from informers
// that it starts on first use of a kind, and reports a source whose
// artifact changed, so that the Components using it are reconciled.
type fluxSources struct {
	cache    cache.Cache
	mapper   meta.RESTMapper
	watches  *lazyWatches
	changed  func(kind string, id types.NamespacedName)
	noCrossN bool
}

// artifact returns the artifact of c's spec.sourceRef. A source that is
// missing or has no artifact yet is retried: Flux may be about to make it.
func (f *fluxSources) artifact(ctx context.Context, c *v1alpha1.Component) (artifact, error) {
	ref := c.Spec.SourceRef
	id := types.NamespacedName{Namespace: orDefault(ref.Namespace, c.Namespace), Name: ref.Name}
	what := fmt.Sprintf("%s %s", ref.Kind, id)
	if f.noCrossN && id.Namespace != c.Namespace {
		return artifact{}, &manifests.UserError{Err: fmt.Errorf("spec.sourceRef: %s is not in the Component's namespace %s: cross-namespace references are refused (--no-cross-namespace-refs)", what, c.Namespace)}
	}
	obj, err := f.object(ctx, ref.Kind)
	if err != nil {
		return artifact{}, err
	}
	if err := f.cache.Get(ctx, id, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return artifact{}, component.Retriable(fmt.Errorf("spec.sourceRef: %s not found", what), 0)
		}
		return artifact{}, readError(fmt.Errorf("spec.sourceRef: reading %s: %w", what, err))
	}
	return artifactOf(obj, what)
}

// object returns an empty object of a Flux source kind, in the version the
// API server prefers, after making sure its informer runs.
func (f *fluxSources) object(ctx context.Context, kind string) (*unstructured.Unstructured, error) {
	mapping, err := f.mapper.RESTMapping(schema.GroupKind{Group: fluxGroup, Kind: kind})
	if meta.IsNoMatchError(err) {
		return nil, component.Retriable(fmt.Errorf("spec.sourceRef: kind %s of %s is not served: install Flux's source-controller", kind, fluxGroup), 0)
	}
	if err != nil {
		return nil, fmt.Errorf("spec.sourceRef: finding kind %s of %s: %w", kind, fluxGroup, err)
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(mapping.GroupVersionKind)
	if err := f.watches.ensure(ctx, obj, f.handler(kind)); err != nil {
		return nil, fmt.Errorf("spec.sourceRef: %w", err)
	}
	return obj, nil
}

func (f *fluxSources) handler(kind string) toolscache.ResourceEventHandler {
	report := func(obj any) {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			f.changed(kind, types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()})
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { report(obj) },
		UpdateFunc: func(old, obj any) {
			before, ok1 := old.(*unstructured.Unstructured)
			after, ok2 := obj.(*unstructured.Unstructured)
			if ok1 && ok2 && digestOf(before) != digestOf(after) {
				report(obj)
			}
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			report(obj)
		},
	}
}

func digestOf(u *unstructured.Unstructured) string {
	d, _, _ := unstructured.NestedString(u.Object, "status", "artifact", "digest")
	return d
}

// artifactOf reads status.artifact. Flux writes it once it has fetched the
// source; until then the Ready condition says why not.
func artifactOf(obj *unstructured.Unstructured, what string) (artifact, error) {
	a := artifact{}
	a.URL, _, _ = unstructured.NestedString(obj.Object, "status", "artifact", "url")
	a.Digest, _, _ = unstructured.NestedString(obj.Object, "status", "artifact", "digest")
	a.Revision, _, _ = unstructured.NestedString(obj.Object, "status", "artifact", "revision")
	if a.URL == "" || a.Digest == "" {
		return artifact{}, component.Retriable(fmt.Errorf("spec.sourceRef: %s has no artifact yet%s", what, readyNote(obj)), 0)
	}
	return a, nil
}

// readyNote quotes a source's Ready condition when it is not True.
func readyNote(obj *unstructured.Unstructured) string {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		m, ok := c.(map[string]any)
		if ok && m["type"] == "Ready" && m["status"] != "True" {
			return fmt.Sprintf(" (Ready %v: %v)", m["status"], m["message"])
		}
	}
	return ""
}
