package report

import (
	"context"
	"maps"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/passtrace"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// What the reconciler tells ReconcilerOptions.Notifier, and when: each
// function returns at once when there is no Notifier, so that alerts cost
// nothing while they are off.

// statusBefore is what the status said before a Reconcile wrote it: its
// Ready condition (nil: none) and the revision it was rendered from.
type statusBefore struct {
	ready    *metav1.Condition
	revision string
}

// notifyOutcome tells the Notifier what the Reconcile's outcome changed in
// the status, which said before what it said when the Reconcile read it:
// Ready after anything else or at a new generation or revision, a failure,
// a stall, a rollback or a blocked deletion that the status did not say
// yet, and a wave that has waited longer than WaveHeldAfter, once per wave
// and attempt.
func (sr *Recorder) notifyOutcome(ctx context.Context, before *statusBefore, o outcome.Outcome) {
	if sr.Notifier == nil || before == nil || sr.WroteAhead || o.Gone {
		return
	}
	if o.Held != nil && sr.Held.Changed(sr.ID, o.Held.Wave) {
		sr.alert(ctx, sr.Component, sr.Source, notify.KindWaveHeld, o.Reason, o.Held.Message)
	}
	rendered := before.ready == nil || before.ready.ObservedGeneration != sr.Component.GetGeneration() ||
		before.revision != revision(sr.Component.GetStatus().Source)
	if kind, news := outcomeKind(before.ready, rendered, o); news {
		sr.alert(ctx, sr.Component, sr.Source, kind, o.Reason, o.Message)
	}
}

// outcomeKind says what the outcome o tells, if it is news after the Ready
// condition before: Ready when the component was not Ready, or it is Ready
// at a new render (a new generation or source revision: an upgrade that
// was Ready in one pass); a failure, a stall, a rollback or a blocked
// deletion when the condition did not say the same already (a retry that
// fails the same way is no news). Work in progress tells nothing.
func outcomeKind(before *metav1.Condition, rendered bool, o outcome.Outcome) (notify.Kind, bool) {
	said := before != nil && before.Reason == o.Reason && before.Message == bound.Message(o.Message, bound.ConditionLimit)
	switch {
	case o.Reason == api.ReasonReady:
		return notify.KindReady, before == nil || before.Status != metav1.ConditionTrue || rendered
	case said:
		return "", false
	case o.Reason == api.ReasonRolledBack:
		return notify.KindRolledBack, true
	case o.Reason == api.ReasonDeletionBlocked:
		return notify.KindDeletionBlocked, true
	case !o.Warns():
		return "", false
	case o.Stalled:
		return notify.KindStalled, true
	}
	return notify.KindFailed, true
}

// NotifyDrift tells the Notifier of the objects the pass wrote back after
// others changed them, and of those it found drifted and left (drift mode
// Warn) that it had not reported yet; source is where the pass's render
// came from.
func (sr *Recorder) NotifyDrift(ctx context.Context, source *manifests.SourceInfo, res engine.Result) {
	if sr.Notifier == nil {
		return
	}
	var corrected, reported []string
	for _, a := range res.Actions {
		if a.Corrected {
			corrected = append(corrected, a.Object.String())
		}
	}
	for _, d := range res.Drifted {
		if d.New {
			reported = append(reported, d.Object.String())
		}
	}
	if len(corrected) > 0 {
		sr.alert(ctx, sr.Component, source, notify.KindDriftCorrected, api.ReasonDriftCorrected,
			bound.Objects("corrected, after a change made out of band,", corrected))
	}
	if len(reported) > 0 {
		sr.alert(ctx, sr.Component, source, notify.KindDriftReported, api.ReasonDriftDetected,
			bound.Objects("left, changed out of band (drift mode Warn),", reported))
	}
}

// alert sends the Notifier what happened to component: its kind, name,
// labels (for routing), generation, the revision of source, the trace ID
// of ctx's Reconcile and the time now.
func (r *Reporter) alert(ctx context.Context, component api.Component, source *manifests.SourceInfo, kind notify.Kind, reason, message string) {
	object := notify.Object{Namespace: component.GetNamespace(), Name: component.GetName(), UID: string(component.GetUID())}
	if gvk, err := apiutil.GVKForObject(component, r.Client.Scheme()); err == nil {
		object.APIVersion, object.Kind = gvk.GroupVersion().String(), gvk.Kind
	}
	e := notify.Event{Kind: kind, Object: object, Reason: reason, Message: message, Generation: component.GetGeneration(),
		TraceID: passtrace.TraceID(ctx), Time: time.Now(), Operator: r.Operator, Labels: maps.Clone(component.GetLabels())}
	if e.Revision = revision(source); e.Revision == "" {
		e.Revision = revision(component.GetStatus().Source)
	}
	r.Notifier.Send(e)
}

// saidBefore is what the status said as last read or written, for
// notifyOutcome; nil without a Notifier.
func (sr *Recorder) saidBefore() *statusBefore {
	if sr.Notifier == nil {
		return nil
	}
	before := &statusBefore{revision: revision(sr.Written.Source)}
	if c := sr.Written.ReadyCondition(); c != nil {
		ready := *c
		before.ready = &ready
	}
	return before
}

// revision is the revision of source, "" for none.
func revision(source *manifests.SourceInfo) string {
	if source == nil {
		return ""
	}
	return source.Revision
}
