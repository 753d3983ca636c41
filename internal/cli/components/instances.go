package components

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
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
// of kind when kind is given; what is the kind's name.
func connectToComponentOf(ctx context.Context, s *session.Session, ref, kind string) (*session.Cluster, *v1alpha1.Component, string, error) {
	if kind == "" {
		cl, c, err := connectToComponent(ctx, s, ref)
		return cl, c, "Component", err
	}
	cl, err := session.OperatorCluster(ctx, s)
	if err != nil {
		return nil, nil, "", err
	}
	k, err := resolveKind(cl, kind)
	if err != nil {
		return nil, nil, "", err
	}
	c, err := k.read(ctx, cl, ref)
	return cl, c, k.gvk.Kind, err
}

// definedKind is the kind --kind names, and the name of its definition
// (<plural>.<group>, its CRD's).
type definedKind struct {
	gvk        schema.GroupVersionKind
	definition string
}

func resolveKind(cl *session.Cluster, name string) (*definedKind, error) {
	gr := schema.ParseGroupResource(strings.ToLower(name))
	gvk, err := cl.Client.RESTMapper().KindFor(gr.WithVersion(""))
	if err != nil {
		return nil, fmt.Errorf("--kind %s: the cluster serves no such kind: %w", name, err)
	}
	mapping, err := cl.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("--kind %s: %w", name, err)
	}
	return &definedKind{gvk: gvk, definition: mapping.Resource.Resource + "." + gvk.Group}, nil
}

// read reads the instance id of k as a Component: its metadata and status,
// and the health checks its definition gives every instance (none when
// the definition cannot be read, as a tenant cannot).
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
	def := &v1alpha1.ComponentDefinition{}
	if err := cl.Client.Get(ctx, client.ObjectKey{Name: k.definition}, def); err == nil {
		c.Spec.HealthChecks = def.Spec.Instances.HealthChecks
	}
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
