package component

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// ReasonStatusRejected is the reason of the Event that says the API server
// rejected a component's status as invalid.
const ReasonStatusRejected = "StatusRejected"

// rejectedStatusError is a status write the API server rejected as invalid
// (422). What the framework writes is valid by its own Status schema, so the
// component's CRD most likely comes from an older one (a field it still
// requires, a value it does not allow): the error says so and what to do,
// then what the server said of each field, one a line.
type rejectedStatusError struct {
	hint   string
	causes []string
	err    error
}

func (e *rejectedStatusError) Error() string {
	return e.hint + "\n" + strings.Join(e.causes, "\n")
}

func (e *rejectedStatusError) Unwrap() error { return e.err }

// rejected turns the API server's refusal of the status into a
// rejectedStatusError, and logs it.
func (sr *statusRecorder[T]) rejected(ctx context.Context, err error) error {
	field, causes := rejectedFields(err)
	if field != "" {
		field = " (it rejected " + field + ")"
	}
	rejected := &rejectedStatusError{
		hint: fmt.Sprintf("the API server rejected it: the CustomResourceDefinition %s may be out of date with the framework's Status schema%s; regenerate the CRD with controller-gen (make manifests) and apply it",
			sr.crdName(), field),
		causes: causes,
		err:    err,
	}
	log.FromContext(ctx).Error(errors.New(boundMessage(strings.Join(causes, "\n"), eventNoteLimit)),
		"writing status of "+sr.id.String()+": "+rejected.hint)
	return rejected
}

// finishRejected reports an outcome whose status the API server rejected.
// The outcome is then stored with the inventory as last stored, as
// finishTooLarge does: the CRD accepted it, and it already records every
// object created, since new items are stored before their objects are
// created. So the component shows why it is stuck.
func (sr *statusRecorder[T]) finishRejected(ctx context.Context, rejected error, retry time.Duration) (ctrl.Result, error) {
	o := failure(rejected, retry, &sr.written)
	status := sr.component.GetStatus()
	status.Inventory = sr.written.Inventory
	status.setReady(sr.component.GetGeneration(), o.reason, o.message, o.stalled)
	sr.r.gauge.observe(sr.id.String(), status)
	sr.r.note(sr.component, o, false, traceID(ctx))
	if err := sr.writeStatus(ctx); err != nil && !apierrors.IsConflict(err) {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: o.requeue}, nil
}

// rejectedFields returns the first field the API server rejected and what
// it said of each ("status.inventory[0].digest: Required value"), in its
// order, or its whole message when it named no field.
func rejectedFields(err error) (string, []string) {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil || len(status.Status().Details.Causes) == 0 {
		return "", []string{err.Error()}
	}
	first := ""
	var causes []string
	for _, c := range status.Status().Details.Causes {
		if c.Field == "" || c.Field == "<nil>" {
			causes = append(causes, c.Message)
			continue
		}
		if first == "" {
			first = c.Field
		}
		causes = append(causes, c.Field+": "+c.Message)
	}
	return first, causes
}

// crdName names the CustomResourceDefinition of the component's kind
// (components.wavekit.dev), or its kind when the API is not known.
func (sr *statusRecorder[T]) crdName() string {
	gvk, err := apiutil.GVKForObject(sr.component, sr.r.client.Scheme())
	if err != nil {
		return fmt.Sprintf("of %T", sr.component)
	}
	mapping, err := sr.r.client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return "of " + gvk.GroupKind().String()
	}
	return mapping.Resource.GroupResource().String()
}
