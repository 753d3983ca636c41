package definition

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// maxDropped bounds the schema keywords the status lists.
const maxDropped = 50

// conclude writes what the pass found into the definition's status: the
// kind, revisions and instances, the keywords the schema lost, and the
// conditions that say how far it got and why it stopped, if it did.
func (p *pass) conclude(err error) {
	st := &p.def.Status
	st.ObservedGeneration = p.def.Generation
	if p.res != nil {
		st.Dropped = dropped(p.res)
	}
	if p.established {
		gvk := GVK(p.def)
		st.APIVersion, st.Kind = gvk.GroupVersion().String(), gvk.Kind
	}
	if p.instances != nil || p.established {
		p.countInstances()
	}
	ready, reason, message := p.outcome(err)
	status := metav1.ConditionFalse
	if ready {
		status = metav1.ConditionTrue
	}
	p.setCondition(component.ConditionReady, status, reason, message)
	stalled := reason == ReasonInvalid || reason == ReasonInvalidSchema || reason == ReasonKindClash || reason == ReasonSourceRefused ||
		reason == ReasonSchemaBreaksInstances || reason == ReasonRolloutHalted
	p.flag("Stalled", stalled, reason, message)
	p.flag("Reconciling", reason == ReasonRollingOut || reason == ReasonEstablishing, reason, message)
}

func (p *pass) outcome(err error) (bool, string, string) {
	var refused *refusal
	switch {
	case errors.As(err, &refused):
		return false, refused.reason, refused.Error()
	case err != nil:
		return false, ReasonSourceUnavailable, err.Error()
	case !p.established:
		return false, ReasonEstablishing, fmt.Sprintf("the CRD %s is written; waiting for the API server to serve it", crdgen.Name(p.def))
	}
	served := fmt.Sprintf("%s %s is served at revision %d", p.def.Status.APIVersion, p.def.Status.Kind, p.def.Status.Revision)
	switch st := p.def.Status.Rollout; {
	case st == nil || st.Phase == v1alpha1.RolloutComplete:
		return true, ReasonServed, fmt.Sprintf("%s; %d of %d instances Ready", served, p.def.Status.ReadyInstances, p.def.Status.Instances)
	case st.Phase == v1alpha1.RolloutHalted:
		return false, ReasonRolloutHalted, fmt.Sprintf("%s; the rollout %s", served, st.Message)
	case st.Phase == v1alpha1.RolloutPaused:
		return false, ReasonRolloutPaused, fmt.Sprintf("%s; the rollout from revision %d is %s", served, st.From, st.Message)
	default:
		return false, ReasonRollingOut, fmt.Sprintf("%s; rolling out from revision %d: %s", served, st.From, st.Message)
	}
}

func (p *pass) setCondition(kind string, status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&p.def.Status.Conditions, metav1.Condition{Type: kind, Status: status, Reason: reason,
		Message: bound(message, 30000), ObservedGeneration: p.def.Generation})
}

// flag sets a kstatus condition while on, and removes it when off.
func (p *pass) flag(kind string, on bool, reason, message string) {
	if !on {
		meta.RemoveStatusCondition(&p.def.Status.Conditions, kind)
		return
	}
	p.setCondition(kind, metav1.ConditionTrue, reason, message)
}

// countInstances sums the instances up: how many, how many Ready at their
// revision, and how many run each revision.
func (p *pass) countInstances() {
	st := &p.def.Status
	st.Instances, st.ReadyInstances = int32(len(p.instances)), 0
	running := map[int64]int32{}
	for n := range p.instances {
		i := rolloutInstance(p.r.opts.Name, &p.instances[n])
		running[i.Running]++
		if i.Ready {
			st.ReadyInstances++
		}
	}
	var revisions []v1alpha1.RevisionSummary
	for _, s := range st.Revisions {
		if s.Revision == st.Revision || running[s.Revision] > 0 {
			s.Instances = running[s.Revision]
			revisions = append(revisions, s)
		}
	}
	if !slices.ContainsFunc(revisions, func(s v1alpha1.RevisionSummary) bool { return s.Revision == st.Revision }) && st.Revision > 0 {
		revisions = append(revisions, v1alpha1.RevisionSummary{Revision: st.Revision, Instances: running[st.Revision],
			Source: p.sourceSummary(), Created: metav1.NewTime(time.Now().Truncate(time.Second))})
	}
	for rev, n := range running {
		if rev > 0 && !slices.ContainsFunc(revisions, func(s v1alpha1.RevisionSummary) bool { return s.Revision == rev }) {
			revisions = append(revisions, v1alpha1.RevisionSummary{Revision: rev, Instances: n})
		}
	}
	slices.SortFunc(revisions, func(a, b v1alpha1.RevisionSummary) int { return int(b.Revision - a.Revision) })
	if len(revisions) > 20 {
		revisions = revisions[:20]
	}
	st.Revisions = revisions
}

func (p *pass) sourceSummary() string {
	if p.res == nil {
		return ""
	}
	return describeResolved(p.res.resolved.Resolved)
}

func dropped(res *resolution) []string {
	var out []string
	if res.noSchema {
		out = append(out, "spec: the source has no "+crdgen.SchemaFile+": the spec is free-form")
	}
	for n, d := range res.dropped {
		if n == maxDropped {
			out = append(out, fmt.Sprintf("… and %d more", len(res.dropped)-maxDropped))
			break
		}
		out = append(out, bound(d.String(), 512))
	}
	return out
}

// writeStatus writes def's status when it differs from before's.
func (r *reconciler) writeStatus(ctx context.Context, before, def *v1alpha1.ComponentDefinition) error {
	if equality.Semantic.DeepEqual(before.Status, def.Status) {
		return nil
	}
	if err := r.client.Status().Patch(ctx, def, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("writing the status of ComponentDefinition %s: %w", def.Name, err)
	}
	return nil
}

// tell sends an alert, and records an Event, when the rollout halted, or
// halted at another instance, since before. The Event is related to the
// instance: client-go counts an Event of the same object, related object,
// type, reason and action as a repeat of the first one, whose note stays,
// so a halt at another instance must be another Event to be told at all.
func (r *reconciler) tell(before, def *v1alpha1.ComponentDefinition) {
	now, was := def.Status.Rollout, before.Status.Rollout
	if now == nil || now.Phase != v1alpha1.RolloutHalted || now.Failed == nil {
		return
	}
	if was != nil && was.Phase == v1alpha1.RolloutHalted && was.Failed != nil && *was.Failed == *now.Failed && was.Revision == now.Revision {
		return
	}
	message := fmt.Sprintf("the rollout of ComponentDefinition %s to revision %d %s: %s", def.Name, now.Revision, now.Message, now.Failed.Message)
	ns, name := splitID(now.Failed.Instance)
	r.recorder.Eventf(def, instanceRef(def, ns, name), "Warning", ReasonRolloutHalted, "RollOut", "%s", bound(message, 1000))
	if r.opts.Notifier == nil {
		return
	}
	r.opts.Notifier.Send(notify.Event{Kind: notify.KindWaveHeld, Reason: ReasonRolloutHalted, Message: bound(message, notify.MaxMessageBytes),
		Object:   notify.Object{APIVersion: def.Status.APIVersion, Kind: def.Status.Kind, Namespace: ns, Name: name},
		Metadata: map[string]string{"definition": def.Name, "revision": fmt.Sprint(now.Revision), "from": fmt.Sprint(now.From)},
		Time:     time.Now(), Operator: r.opts.Name, Generation: def.Generation})
}

// instanceRef is the instance ns/name of def's kind, as an Event's related
// object.
func instanceRef(def *v1alpha1.ComponentDefinition, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(def.Status.APIVersion)
	u.SetKind(def.Status.Kind)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func splitID(id string) (string, string) {
	for n := range id {
		if id[n] == '/' {
			return id[:n], id[n+1:]
		}
	}
	return "", id
}
