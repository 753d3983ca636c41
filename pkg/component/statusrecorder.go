package component

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/passtrace"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// statusRecorder records the outcome of one Reconcile: in the component's
// status, written at most once per Reconcile (at its end, or ahead of the
// new objects of its pass: writeahead.go), in an Event (events.go) and in
// the log. A status the API server refuses is reported in its stead
// (rejected.go), and fields its CRD drops are noticed (pruned.go).
type statusRecorder struct {
	r          *core
	component  Component
	id         types.NamespacedName
	written    Status    // the status as last read or written
	start      time.Time // when the Reconcile began
	writes     int       // the objects the Reconcile wrote or deleted
	wroteAhead bool      // the status was written ahead of the objects of the pass, which the next Reconcile creates
	// source is where the pass's render came from, for the Notifier.
	source *manifests.SourceInfo
}

// statusWriteTimeout bounds the final status write of a reconcile.
const statusWriteTimeout = 10 * time.Second

// sameBesideInventory tells whether two statuses are the same in all but
// their inventories, which manifests.EqualInventories compares without
// reflection.
func sameBesideInventory(a, b Status) bool {
	a.Inventory, b.Inventory = nil, nil
	return apiequality.Semantic.DeepEqual(a, b)
}

// writeStatus writes the status if it differs from what was read or last
// written (optimistic locking through the resourceVersion).
func (sr *statusRecorder) writeStatus(ctx context.Context) error {
	status := sr.component.GetStatus()
	sameInventory := manifests.EqualInventories(status.Inventory, sr.written.Inventory)
	if sameInventory && sameBesideInventory(*status, sr.written) || sr.r.pruned.sameButPruned(status, &sr.written) {
		return nil
	}
	if !sameInventory {
		if err := sr.checkSize(); err != nil {
			return err
		}
	}
	status.LastTraceID = passtrace.TraceID(ctx)
	sent := jsonMap(status)
	if err := sr.updateStatus(ctx); err != nil {
		if refusal := outcome.AdmissionRefusal(err); refusal != nil {
			err = refusal // a policy's or webhook's, not the CRD's
		} else if apierrors.IsInvalid(err) {
			err = sr.rejected(ctx, err)
		}
		return fmt.Errorf("writing status of %s: %w", sr.id, err)
	}
	sr.noticePruned(ctx, sent)
	sr.written = *status.DeepCopy()
	sr.r.status.remember(sr.component)
	return nil
}

// updateStatus sends the status to the API server, in a span of its own.
func (sr *statusRecorder) updateStatus(ctx context.Context) error {
	ctx, span := passtrace.Span(ctx, "write status")
	if span.IsRecording() {
		span.SetAttributes(passtrace.AttrObjects.Int(len(sr.component.GetStatus().Inventory)))
	}
	err := sr.r.client.Status().Update(ctx, sr.component, client.FieldOwner(sr.r.opts.FieldOwner))
	spans.End(span, err)
	return err
}

// checkSize refuses an inventory that would make the component larger than
// the API server can store once its objects are applied, with a message that
// says what to do, rather than letting etcd reject the write ("request is too
// large") or, worse, accept it and reject the next one.
func (sr *statusRecorder) checkSize() error {
	data, err := json.Marshal(sr.component)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", sr.id, err)
	}
	inventory := sr.component.GetStatus().Inventory
	size := len(data)
	for _, item := range inventory {
		size += item.AppliedGrowth()
	}
	if limit := sr.r.opts.MaxObjectBytes; size > limit {
		return &outcome.TooLargeError{Message: fmt.Sprintf(
			"component %s would take %s with an inventory of %d objects, more than the %s an object may take (etcd's default request limit is 1.5 MiB): split it into smaller components",
			sr.id, bound.ByteSize(size), len(inventory), bound.ByteSize(limit))}
	}
	return nil
}

// noticePruned compares the status sent with the status the API server
// stored and, when fields were dropped that were not known to be, says once,
// in a Warning Event and the log, which and what to do.
func (sr *statusRecorder) noticePruned(ctx context.Context, sent map[string]any) {
	fresh := sr.r.pruned.learn(droppedPaths(sent, jsonMap(sr.component.GetStatus()), ""))
	if len(fresh) == 0 {
		return
	}
	note := "the CustomResourceDefinition " + sr.crdName() + " drops the status fields " + strings.Join(fresh, ", ") +
		" that this version of the framework writes: it predates the framework; regenerate it with controller-gen (make manifests) and apply it. " +
		"Until then the status is not written again for these fields alone"
	log.FromContext(ctx).Info(note, "component", sr.id.String())
	if sr.r.recorder != nil {
		sr.r.recorder.Eventf(sr.component, nil, "Warning", ReasonStatusFieldsPruned, "WriteStatus", "%s", note)
	}
}

// rejected turns the API server's refusal of the status into a
// rejectedStatusError, and logs it.
func (sr *statusRecorder) rejected(ctx context.Context, err error) error {
	field, causes := outcome.RejectedFields(err)
	if field != "" {
		field = " (it rejected " + field + ")"
	}
	rejected := &outcome.RejectedStatusError{
		Hint: fmt.Sprintf("the API server rejected it: the CustomResourceDefinition %s may be out of date with the framework's Status schema%s; regenerate the CRD with controller-gen (make manifests) and apply it",
			sr.crdName(), field),
		Causes: causes,
		Err:    err,
	}
	log.FromContext(ctx).Error(errors.New(bound.Message(strings.Join(causes, "\n"), bound.EventLimit)),
		"writing status of "+sr.id.String()+": "+rejected.Hint)
	return rejected
}

// crdName names the CustomResourceDefinition of the component's kind
// (components.wavekit.dev), or its kind when the API is not known.
func (sr *statusRecorder) crdName() string {
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
