package definition

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
)

// ensureCRD writes the kind's CRD when it is missing or differs from what
// the definition makes, and tells whether the API server serves it. A CRD
// of that name the operator did not write for the definition is refused
// (revise checked it before any revision; this checks again before the
// write).
func (p *pass) ensureCRD(ctx context.Context, want *apiextensionsv1.CustomResourceDefinition) (bool, error) {
	live := &apiextensionsv1.CustomResourceDefinition{}
	err := p.r.client.Get(ctx, client.ObjectKeyFromObject(want), live)
	if apierrors.IsNotFound(err) {
		if err := p.checkClash(ctx); err != nil {
			return false, err
		}
		if err := p.r.client.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
			return false, &transient{fmt.Errorf("creating the CRD %s: %w", want.Name, err)}
		}
		return false, nil
	}
	if err != nil {
		return false, &transient{fmt.Errorf("reading the CRD %s: %w", want.Name, err)}
	}
	if live.Labels[p.r.label] != p.def.Name {
		return false, &refusal{reason: ReasonKindClash, err: fmt.Errorf("the CRD %s exists and the operator did not write it for this definition: refused, nothing changed", want.Name)}
	}
	same, whole, err := p.r.checked.sameSpec(ctx, p.r.api, live, want)
	if err != nil {
		return false, &transient{err}
	}
	if same && hasLabels(live.Labels, want.Labels) {
		return established(live), nil
	}
	if whole == nil {
		whole = &apiextensionsv1.CustomResourceDefinition{}
		if err := p.r.api.Get(ctx, client.ObjectKeyFromObject(want), whole); err != nil {
			return false, &transient{fmt.Errorf("reading the CRD %s: %w", want.Name, err)}
		}
	}
	// whole, not the cached CRD, which holds no schemas.
	whole.Labels, whole.Annotations = mergeMaps(whole.Labels, want.Labels), mergeMaps(whole.Annotations, want.Annotations)
	whole.Spec = want.Spec
	if err := p.r.client.Update(ctx, whole); err != nil {
		return false, &transient{fmt.Errorf("updating the CRD %s: %w", want.Name, err)}
	}
	return false, nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

func mergeMaps(into, from map[string]string) map[string]string {
	if into == nil {
		into = map[string]string{}
	}
	for k, v := range from {
		into[k] = v
	}
	return into
}

// ensureRoles writes the kind's view and edit ClusterRoles when they are
// missing or differ.
func (p *pass) ensureRoles(ctx context.Context) error {
	for _, want := range crdgen.ClusterRoles(p.r.opts.Name, p.def) {
		live := &rbacv1.ClusterRole{}
		err := p.r.client.Get(ctx, client.ObjectKeyFromObject(want), live)
		switch {
		case apierrors.IsNotFound(err):
			if err := p.r.client.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
				return &transient{fmt.Errorf("creating the ClusterRole %s: %w", want.Name, err)}
			}
		case err != nil:
			return &transient{fmt.Errorf("reading the ClusterRole %s: %w", want.Name, err)}
		case !equality.Semantic.DeepEqual(live.Rules, want.Rules) || !hasLabels(live.Labels, want.Labels):
			update := live.DeepCopy()
			update.Rules, update.Labels = want.Rules, mergeMaps(update.Labels, want.Labels)
			if err := p.r.client.Update(ctx, update); err != nil {
				return &transient{fmt.Errorf("updating the ClusterRole %s: %w", want.Name, err)}
			}
		}
	}
	return nil
}

func hasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}
