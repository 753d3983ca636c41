package livestatus

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Of computes the status of the object of item as it is now, as a
// pass of the engine would see it (the owner's health checks in judge, else
// kstatus with wavekit's rules for CRDs, APIServices, Jobs and the object's
// status-hint under prefix).
func Of(ctx context.Context, c client.Client, judge engine.Judge, item manifests.InventoryItem, prefix string) (string, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(item.GroupVersionKind())
	err := c.Get(ctx, client.ObjectKey{Namespace: item.Namespace, Name: item.Name}, obj)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return "NotFound", nil
	case err != nil:
		return "", fmt.Errorf("reading %s: %w", item.String(), err)
	}
	st, _ := judge.Readiness(obj, statusHintOf(obj, prefix))
	return string(st), nil
}

// statusHintOf reads the status-hint annotation of a live object; an object
// whose annotations do not parse gets no hint.
func statusHintOf(obj *unstructured.Unstructured, prefix string) manifests.StatusHint {
	policies, err := manifests.ParsePolicies(prefix, obj.GetKind()+" "+obj.GetName(), obj.GetAnnotations(), manifests.Defaults{})
	if err != nil {
		return manifests.StatusHint{}
	}
	return policies.StatusHint
}
