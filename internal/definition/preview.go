package definition

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/instance"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/component/dynamic"
	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// PreviewInstance tells what the next pass of u, an instance of def's
// kind, would do, and writes nothing: the instance is bound to the
// revision the operator of opts would give it now (its pin, the rollout's
// wave, read with reader), rendered from that revision's pinned source
// with the labels of its kind, and planned against its own inventory with
// the operator's reconciler, every write a server-side dry run. scheme
// must hold the Kubernetes types and v1alpha1; the kind is added to it.
func PreviewInstance(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, reader client.Reader, opts operator.Options,
	def *v1alpha1.ComponentDefinition, u *unstructured.Unstructured) (engine.Preview, error) {
	gvk := GVK(def)
	if !scheme.Recognizes(gvk) {
		scheme.AddKnownTypeWithName(gvk, &instance.Instance{})
		scheme.AddKnownTypeWithName(gvk.GroupVersion().WithKind(gvk.Kind+"List"), &dynamic.List[*instance.Instance]{})
	}
	i := &instance.Instance{}
	raw, err := json.Marshal(u.Object)
	if err == nil {
		err = json.Unmarshal(raw, i)
	}
	if err != nil {
		return engine.Preview{}, fmt.Errorf("reading %s %s/%s: %w", gvk.Kind, u.GetNamespace(), u.GetName(), err)
	}
	b := newBinder(reader, opts.Name, def.Name, gvk)
	defer b.close()
	if err := b.bind(ctx, nil, i); err != nil {
		return engine.Preview{}, fmt.Errorf("%s %s/%s: %w", gvk.Kind, i.Namespace, i.Name, err)
	}
	sources, stop, err := operator.PreviewSources(ctx, cfg, scheme, opts, "")
	if err != nil {
		return engine.Preview{}, err
	}
	defer stop()
	r := component.NewReconciler[*instance.Instance](opts.Name, instance.Generator{Sources: sources}, instanceOptions(opts.Name, opts.Reconciler, def))
	preview, err := r.Preview(ctx, cfg, scheme, i)
	if err != nil {
		return engine.Preview{}, fmt.Errorf("%s %s/%s: %w", gvk.Kind, i.Namespace, i.Name, err)
	}
	return preview, nil
}
