package report

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
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/passtrace"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/notify"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// Reporter is what the Recorders of one reconciler share: where they
// write, and what the reconciler remembers between Reconciles.
type Reporter struct {
	// Operator is the operator's name, the prefix of its annotations.
	Operator       string
	Client         client.Client
	FieldOwner     string
	MaxObjectBytes int
	// Events records the Events; nil records none.
	Events recorder.EventRecorder
	// Notifier is told what happens (notify.go); nil: alerts are off.
	Notifier notify.Sink
	Written  *Written // the statuses written, until the cache shows them
	Pruned   *Pruned  // the status fields the CRD drops
	Notes    *Notes   // the last Event of each component
	Held     *Notes   // the held wave last told to the Notifier; nil without one
	// Observe counts the component's state and phases in the metrics (nil
	// status: it is gone).
	Observe func(id string, status *api.Status)
	// Wrote counts the objects a pass wrote, in the metrics.
	Wrote func(component api.Component, n int)
	// Forget drops what the reconciler keeps of a component that is gone.
	Forget func(id types.NamespacedName)
}

// Recorder records the outcome of one Reconcile: in the component's
// status, written at most once per Reconcile (at its end, or ahead of the
// new objects of its pass: WriteAhead), in an Event (events.go) and in the
// log. A status the API server refuses is reported in its stead
// (finishRejected, finishTooLarge), and fields its CRD drops are noticed
// (pruned.go).
type Recorder struct {
	*Reporter
	Component api.Component
	ID        types.NamespacedName
	Written   api.Status // the status as last read or written
	Start     time.Time  // when the Reconcile began
	Writes    int        // the objects the Reconcile wrote or deleted
	// WroteAhead tells that the status was written ahead of the objects of
	// the pass, which the next Reconcile creates.
	WroteAhead bool
	// Source is where the pass's render came from, for the Notifier.
	Source *manifests.SourceInfo
}

// statusWriteTimeout bounds the final status write of a reconcile.
const statusWriteTimeout = 10 * time.Second

// sameBesideInventory tells whether two statuses are the same in all but
// their inventories, which manifests.EqualInventories compares without
// reflection.
func sameBesideInventory(a, b api.Status) bool {
	a.Inventory, b.Inventory = nil, nil
	return apiequality.Semantic.DeepEqual(a, b)
}

// WriteStatus writes the status if it differs from what was read or last
// written (optimistic locking through the resourceVersion).
func (sr *Recorder) WriteStatus(ctx context.Context) error {
	status := sr.Component.GetStatus()
	sameInventory := manifests.EqualInventories(status.Inventory, sr.Written.Inventory)
	if sameInventory && sameBesideInventory(*status, sr.Written) || sr.Pruned.sameButPruned(status, &sr.Written) {
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
		return fmt.Errorf("writing status of %s: %w", sr.ID, err)
	}
	sr.noticePruned(ctx, sent)
	sr.Written = *status.DeepCopy()
	sr.Reporter.Written.Remember(sr.Component)
	return nil
}

// updateStatus sends the status to the API server, in a span of its own.
func (sr *Recorder) updateStatus(ctx context.Context) error {
	ctx, span := passtrace.Span(ctx, "write status")
	if span.IsRecording() {
		span.SetAttributes(passtrace.AttrObjects.Int(len(sr.Component.GetStatus().Inventory)))
	}
	err := sr.Client.Status().Update(ctx, sr.Component, client.FieldOwner(sr.FieldOwner))
	spans.End(span, err)
	return err
}

// checkSize refuses an inventory that would make the component larger than
// the API server can store once its objects are applied, with a message that
// says what to do, rather than letting etcd reject the write ("request is too
// large") or, worse, accept it and reject the next one.
func (sr *Recorder) checkSize() error {
	data, err := json.Marshal(sr.Component)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", sr.ID, err)
	}
	inventory := sr.Component.GetStatus().Inventory
	size := len(data)
	for _, item := range inventory {
		size += item.AppliedGrowth()
	}
	if limit := sr.MaxObjectBytes; size > limit {
		return &outcome.TooLargeError{Message: fmt.Sprintf(
			"component %s would take %s with an inventory of %d objects, more than the %s an object may take (etcd's default request limit is 1.5 MiB): split it into smaller components",
			sr.ID, bound.ByteSize(size), len(inventory), bound.ByteSize(limit))}
	}
	return nil
}

// noticePruned compares the status sent with the status the API server
// stored and, when fields were dropped that were not known to be, says once,
// in a Warning Event and the log, which and what to do.
func (sr *Recorder) noticePruned(ctx context.Context, sent map[string]any) {
	fresh := sr.Pruned.learn(droppedPaths(sent, jsonMap(sr.Component.GetStatus()), ""))
	if len(fresh) == 0 {
		return
	}
	note := "the CustomResourceDefinition " + sr.crdName() + " drops the status fields " + strings.Join(fresh, ", ") +
		" that this version of the framework writes: it predates the framework; regenerate it with controller-gen (make manifests) and apply it. " +
		"Until then the status is not written again for these fields alone"
	log.FromContext(ctx).Info(note, "component", sr.ID.String())
	if sr.Events != nil {
		sr.Events.Eventf(sr.Component, nil, "Warning", api.ReasonStatusFieldsPruned, "WriteStatus", "%s", note)
	}
}

// rejected turns the API server's refusal of the status into a
// rejectedStatusError, and logs it.
func (sr *Recorder) rejected(ctx context.Context, err error) error {
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
		"writing status of "+sr.ID.String()+": "+rejected.Hint)
	return rejected
}

// crdName names the CustomResourceDefinition of the component's kind
// (components.wavekit.dev), or its kind when the API is not known.
func (sr *Recorder) crdName() string {
	gvk, err := apiutil.GVKForObject(sr.Component, sr.Client.Scheme())
	if err != nil {
		return fmt.Sprintf("of %T", sr.Component)
	}
	mapping, err := sr.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return "of " + gvk.GroupKind().String()
	}
	return mapping.Resource.GroupResource().String()
}
