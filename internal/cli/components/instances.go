package components

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli/definitions"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The instances of a kind a ComponentDefinition defines carry a
// Component's status (docs/definitions.md): get and tree read them as
// Components with --kind, the kind named as kubectl names a resource
// (databases.platform.example.com, databases, database).

// addKindFlag adds --kind to cmd.
func addKindFlag(cmd *cobra.Command, kind *string) {
	cmd.Flags().StringVar(kind, "kind", "", "a kind a ComponentDefinition defines, whose instances to read as Components (databases.platform.example.com, or its plural)")
}

// connectToComponentOf connects and reads ref: a Component, or an instance
// of kind when kind is given; k is the kind ref was read as, which verbs
// write and watch it as.
func connectToComponentOf(ctx context.Context, s *session.Session, ref, kind string) (*session.Cluster, *definedKind, *v1alpha1.Component, error) {
	if kind == "" {
		cl, c, err := connectToComponent(ctx, s, ref)
		return cl, ownComponentKind, c, err
	}
	cl, err := session.OperatorCluster(ctx, s)
	if err != nil {
		return nil, nil, nil, err
	}
	k, err := resolveKind(ctx, cl, kind)
	if err != nil {
		return nil, nil, nil, err
	}
	c, err := k.read(ctx, cl, ref)
	return cl, k, c, err
}

// definedKind is the kind --kind names, the name of its definition
// (<plural>.<group>, its CRD's) and the health checks the definition gives
// every instance (none when the definition cannot be read, as a tenant
// cannot); ownComponentKind, without a definition, is the Component kind.
type definedKind struct {
	gvk          schema.GroupVersionKind
	definition   string
	healthChecks []manifests.HealthCheck
}

var ownComponentKind = &definedKind{gvk: componentKind}

// resolveKind finds the kind name names, and refuses one that no
// ComponentDefinition defines: its objects are no Components to read or
// write. A user who may not read definitions gets the kind unchecked.
func resolveKind(ctx context.Context, cl *session.Cluster, name string) (*definedKind, error) {
	gr := schema.ParseGroupResource(strings.ToLower(name))
	gvk, err := cl.Client.RESTMapper().KindFor(gr.WithVersion(""))
	if err != nil {
		def := definitionNaming(ctx, cl, gr)
		if def == nil {
			return nil, fmt.Errorf("--kind %s: the cluster serves no such kind: %w", name, err)
		}
		// A short name the mapper does not know: the definition's plural.
		plural := schema.GroupResource{Group: def.Spec.Group, Resource: def.Spec.Names.Plural}
		if gvk, err = cl.Client.RESTMapper().KindFor(plural.WithVersion("")); err != nil {
			return nil, fmt.Errorf("--kind %s: ComponentDefinition %s defines it, but the cluster does not serve it: %s", name, def.Name, whyNotServed(def))
		}
	}
	mapping, err := cl.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("--kind %s: %w", name, err)
	}
	k := &definedKind{gvk: gvk, definition: strings.TrimSuffix(mapping.Resource.Resource+"."+gvk.Group, ".")}
	def := &v1alpha1.ComponentDefinition{}
	err = cl.Client.Get(ctx, client.ObjectKey{Name: k.definition}, def)
	switch {
	case err == nil:
		k.healthChecks = def.Spec.Instances.HealthChecks
	case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		return nil, fmt.Errorf("--kind %s: %s is not a kind a ComponentDefinition defines (there is no ComponentDefinition %s)", name, gvk.GroupKind(), k.definition)
	case !apierrors.IsForbidden(err):
		return nil, fmt.Errorf("--kind %s: reading ComponentDefinition %s: %w", name, k.definition, err)
	}
	return k, nil
}

// read reads the instance ref names of k as a Component: its metadata and
// status, and the health checks of k's definition.
func (k *definedKind) read(ctx context.Context, cl *session.Cluster, ref string) (*v1alpha1.Component, error) {
	id := session.ObjectName(ref, cl.Namespace)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.gvk)
	if err := cl.Client.Get(ctx, id, u); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%s %s not found", k.gvk.Kind, id)
		}
		return nil, fmt.Errorf("reading %s %s: %w", k.gvk.Kind, id, err)
	}
	c, err := asComponent(u)
	if err != nil {
		return nil, err
	}
	c.Spec.HealthChecks = k.healthChecks
	return c, nil
}

// list lists the instances of k in namespace (every namespace when empty).
func (k *definedKind) list(ctx context.Context, cl *session.Cluster, namespace string) ([]v1alpha1.Component, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(k.gvk.GroupVersion().WithKind(k.gvk.Kind + "List"))
	if err := cl.Client.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing %s: %w", k.gvk.Kind, err)
	}
	out := make([]v1alpha1.Component, 0, len(list.Items))
	for i := range list.Items {
		c, err := asComponent(&list.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, *c)
	}
	return out, nil
}

// asComponent is u, an object of k, as a Component: a Component whole, an
// instance's metadata and status, which has a Component's fields.
func (k *definedKind) asComponent(u *unstructured.Unstructured) (*v1alpha1.Component, error) {
	if k.definition == "" {
		c := &v1alpha1.Component{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, c); err != nil {
			return nil, fmt.Errorf("reading Component %s/%s: %w", u.GetNamespace(), u.GetName(), err)
		}
		return c, nil
	}
	return asComponent(u)
}

// asComponent is u, an instance, as a Component: its metadata, and its
// status, which has a Component's fields.
func asComponent(u *unstructured.Unstructured) (*v1alpha1.Component, error) {
	c := &v1alpha1.Component{}
	raw, err := json.Marshal(map[string]any{"metadata": u.Object["metadata"], "status": u.Object["status"]})
	if err == nil {
		err = json.Unmarshal(raw, c)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %s/%s as a Component: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return c, nil
}

// definitionNaming is the ComponentDefinition whose kind gr names (by its
// plural, singular, kind or a short name, and its group when gr has one),
// or nil: none, or the definitions cannot be read.
func definitionNaming(ctx context.Context, cl *session.Cluster, gr schema.GroupResource) *v1alpha1.ComponentDefinition {
	var list v1alpha1.ComponentDefinitionList
	if err := cl.Client.List(ctx, &list); err != nil {
		return nil
	}
	for i := range list.Items {
		def := &list.Items[i]
		names := def.Spec.Names
		if gr.Group != "" && gr.Group != def.Spec.Group {
			continue
		}
		if slices.Contains(append([]string{names.Plural, names.Singular, strings.ToLower(names.Kind)}, names.ShortNames...), gr.Resource) {
			return def
		}
	}
	return nil
}

// whyNotServed is what the definition says of why its kind is not served:
// no operator looked at it, or its Ready condition's message.
func whyNotServed(def *v1alpha1.ComponentDefinition) string {
	if why := definitions.NotServed(def); why != "" {
		return why
	}
	ready := meta.FindStatusCondition(def.Status.Conditions, component.ConditionReady)
	return ready.Reason + ": " + ready.Message
}
