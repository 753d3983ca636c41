package components

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
)

// mayAct checks, with a SelfSubjectAccessReview, that the user may take
// the action verb (reconcile, suspend, resume) on the object of k: the
// RBAC verb of its own that the status page checks too, so that a role
// means the same in both places. The write that follows is the user's
// own, which the API server checks for patch.
func (k *definedKind) mayAct(ctx context.Context, cl *session.Cluster, verb, namespace, name string) error {
	mapping, err := cl.Client.RESTMapper().RESTMapping(k.gvk.GroupKind(), k.gvk.Version)
	if err != nil {
		return ReadError(fmt.Sprintf("finding the resource of %s", k.gvk.Kind), err)
	}
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: k.gvk.Group,
			Resource: mapping.Resource.Resource, Namespace: namespace, Name: name}}}
	if err := cl.Client.Create(ctx, review); err != nil {
		return fmt.Errorf("asking whether you may %s %s %s/%s: %w", verb, k.gvk.Kind, namespace, name, err)
	}
	if !review.Status.Allowed {
		return fmt.Errorf("you may not %s %s %s/%s: that needs the RBAC verb %q on %s.%s (the chart's <release>-web-operator role and edit grant it), as on the status page",
			verb, k.gvk.Kind, namespace, name, verb, mapping.Resource.Resource, k.gvk.Group)
	}
	return nil
}
