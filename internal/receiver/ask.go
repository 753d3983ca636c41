package receiver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// parallelPatches bounds the patches of one request under way at once.
const parallelPatches = 8

// clusterAsker asks through the API server: it lists what a Receiver names
// with reader (not the manager's cache, which holds only this shard's
// Components) and patches with writer.
type clusterAsker struct {
	reader client.Reader
	writer client.Writer
	// key is the annotation <operator>/reconcile-requested-at.
	key string
	now func() time.Time
}

// ask sets the annotation key of every object r names, in r's namespace
// only, to the time now, by a merge patch of that one annotation.
func (a *clusterAsker) ask(ctx context.Context, r *v1alpha1.Receiver, repositories []string) (int, error) {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"annotations": map[string]string{a.key: a.now().UTC().Format(time.RFC3339Nano)}}})
	if err != nil {
		return 0, fmt.Errorf("encoding the reconcile request: %w", err)
	}
	var targets []*metav1.PartialObjectMetadata
	for _, res := range r.Spec.Resources {
		objects, err := a.targets(ctx, r.Namespace, res)
		if err == nil && len(repositories) > 0 {
			objects, err = a.readingPushed(ctx, objects, repositories)
		}
		if err != nil {
			return 0, err
		}
		targets = append(targets, objects...)
	}
	var asked atomic.Int32
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallelPatches)
	for _, o := range targets {
		g.Go(func() error {
			err := a.writer.Patch(gctx, o, client.RawPatch(types.MergePatchType, patch))
			if apierrors.IsNotFound(err) {
				return nil // a named object that is gone has nothing to reconcile
			}
			if err != nil {
				return fmt.Errorf("asking %s %s/%s for a reconcile: %w", o.Kind, o.Namespace, o.Name, err)
			}
			asked.Add(1)
			return nil
		})
	}
	err = g.Wait()
	return int(asked.Load()), err
}

// targets are the objects one entry of spec.resources names in namespace:
// the one of its name, or those its matchLabels select.
func (a *clusterAsker) targets(ctx context.Context, namespace string, res v1alpha1.ReceiverResource) ([]*metav1.PartialObjectMetadata, error) {
	gvk := v1alpha1.GroupVersion.WithKind(res.Kind)
	if res.Name != "*" {
		o := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: res.Name}}
		o.SetGroupVersionKind(gvk)
		return []*metav1.PartialObjectMetadata{o}, nil
	}
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(res.Kind + "List"))
	if err := a.reader.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels(res.MatchLabels)); err != nil {
		return nil, fmt.Errorf("listing the %ss of namespace %s: %w", res.Kind, namespace, err)
	}
	out := make([]*metav1.PartialObjectMetadata, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
		out[i].SetGroupVersionKind(gvk)
	}
	return out, nil
}

// readingPushed keeps the objects that read one of the pushed repositories
// or no Git repository at all: a push of one repository makes no other
// repository be looked at again. It reads each object's spec (a
// ComponentSet's template) with the API reader.
func (a *clusterAsker) readingPushed(ctx context.Context, objects []*metav1.PartialObjectMetadata, repositories []string) ([]*metav1.PartialObjectMetadata, error) {
	var kept []*metav1.PartialObjectMetadata
	for _, o := range objects {
		var spec *v1alpha1.ComponentSpec
		switch o.Kind {
		case "Component":
			c := &v1alpha1.Component{}
			if err := a.reader.Get(ctx, client.ObjectKeyFromObject(o), c); err != nil {
				if apierrors.IsNotFound(err) {
					continue
				}
				return nil, fmt.Errorf("reading Component %s/%s: %w", o.Namespace, o.Name, err)
			}
			spec = &c.Spec
		case "ComponentSet":
			set := &v1alpha1.ComponentSet{}
			if err := a.reader.Get(ctx, client.ObjectKeyFromObject(o), set); err != nil {
				if apierrors.IsNotFound(err) {
					continue
				}
				return nil, fmt.Errorf("reading ComponentSet %s/%s: %w", o.Namespace, o.Name, err)
			}
			spec = &set.Spec.Template.Spec
			if setInputsRead(set, repositories) {
				kept = append(kept, o)
				continue
			}
		}
		if spec == nil || readsPushed(spec, repositories) {
			kept = append(kept, o)
		}
	}
	return kept, nil
}
