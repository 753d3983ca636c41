package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// Pulled clusters. A cluster Secret labelled <operator>/pull: "true" holds
// no kubeconfig: its cluster runs an agent (internal/agent) that dials out
// to the hub. The set writes such a cluster's Component, instead of into
// its own namespace, as a ComponentWork into the cluster's namespace on
// the hub (WorkNamespace), which only that cluster's agent may read; the
// agent runs the Component on its cluster and copies back into the
// ComponentWork's status what the cluster waves gate on, its generations
// translated to the ComponentWork's. The set then plans with a view of the
// ComponentWork as if it were the cluster's Component (viewOf), so waves,
// failures, unreachable clusters, pauses and departures read alike pushed
// or pulled. The agent's Lease (AgentLease) in the cluster's namespace is
// its heartbeat: a Lease not renewed within its duration makes the view's
// Ready condition Unknown, reason TargetUnreachable, as a pushed cluster
// that does not answer.

// AgentLease is the name of the Lease an agent renews in its cluster's
// namespace on the hub.
const AgentLease = "wavekit-agent"

// Keys of pulled clusters, under the operator name.
const (
	// pullLabel marks a cluster Secret as a pulled cluster ("true").
	pullLabel = "pull"
	// workSetNamespaceLabel and workSetNameLabel name, on a ComponentWork,
	// the set that wrote it.
	workSetNamespaceLabel = "set-namespace"
	workSetNameLabel      = "set-name"
	// removalRequestedAnnotation is when the set asked the agent to remove
	// the Component (spec.removal), on the ComponentWork.
	removalRequestedAnnotation = "set-removal-requested-at"
	// viewOfAnnotation marks, in memory only, a view of a ComponentWork
	// with its namespace/name; silentAtAnnotation is when its agent's Lease
	// runs out (RFC 3339).
	viewOfAnnotation   = "set-view-of"
	silentAtAnnotation = "set-agent-silent-at"
)

// PullLabel is the label of a cluster Secret that makes its cluster a
// pulled one ("true"), for the registration of agents.
func PullLabel(operator string) string { return keysFor(operator).pull }

// ClusterLabel is the label that registers a cluster Secret ("true").
func ClusterLabel(operator string) string { return keysFor(operator).cluster }

// WorkNamespace is the namespace on the hub of the pulled cluster cluster
// of namespace setNamespace: the ComponentWorks of the sets of that
// namespace for the cluster, and its agent's Lease. Its name ends in a
// digest of both, so that no cluster Secret of another namespace can name
// a cluster whose work would land in it.
func WorkNamespace(setNamespace, cluster string) string {
	sum := sha256.Sum256([]byte(setNamespace + "/" + cluster))
	suffix := hex.EncodeToString(sum[:])[:8]
	head := setNamespace + "-" + cluster
	if room := 63 - len(suffix) - 1; len(head) > room {
		head = strings.TrimRight(head[:room], "-.")
	}
	return strings.ReplaceAll(head, ".", "-") + "-" + suffix
}

// isPulled tells whether c is a view of a ComponentWork.
func (r *Reconciler) isPulled(c *v1alpha1.Component) bool {
	_, ok := c.Annotations[r.keys.viewOf]
	return ok
}

// pulledComponents are views of the set's ComponentWorks, by cluster.
func (r *Reconciler) pulledComponents(ctx context.Context, set *v1alpha1.ComponentSet) (map[string]*v1alpha1.Component, error) {
	if !r.pulling {
		return nil, nil
	}
	list := &v1alpha1.ComponentWorkList{}
	if err := r.client.List(ctx, list, client.MatchingLabels{r.keys.setNamespace: set.Namespace, r.keys.setName: set.Name}); err != nil {
		return nil, fmt.Errorf("listing the ComponentWorks of ComponentSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	out := map[string]*v1alpha1.Component{}
	now := time.Now()
	for i := range list.Items {
		w := &list.Items[i]
		name := w.Annotations[r.keys.clusterName]
		if name == "" || w.Namespace != WorkNamespace(set.Namespace, name) {
			continue // not the set's making
		}
		lease, err := r.agentLease(ctx, w.Namespace)
		if err != nil {
			return nil, err
		}
		out[name] = viewOf(w, lease, now, r.keys)
	}
	return out, nil
}

// agentLease is the Lease of the agent of the cluster of namespace ns on
// the hub, nil when it has none yet.
func (r *Reconciler) agentLease(ctx context.Context, ns string) (*coordinationv1.Lease, error) {
	lease := &coordinationv1.Lease{}
	err := r.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: AgentLease}, lease)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the Lease of the agent of namespace %s: %w", ns, err)
	}
	return lease, nil
}

// silentAt is when lease runs out: its last renewal plus its duration; the
// zero time when there is no Lease or no renewal yet.
func silentAt(lease *coordinationv1.Lease) time.Time {
	if lease == nil || lease.Spec.RenewTime == nil || lease.Spec.LeaseDurationSeconds == nil {
		return time.Time{}
	}
	return lease.Spec.RenewTime.Add(time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second)
}

// viewOf is the Component the set plans with for the ComponentWork w: its
// annotations (cluster, template digest, wave), generation, spec and
// status; being deleted from the time the set asked for its removal. An
// agent whose Lease ran out (or that never renewed one) makes it
// unreachable: Ready Unknown, reason TargetUnreachable.
func viewOf(w *v1alpha1.ComponentWork, lease *coordinationv1.Lease, now time.Time, pk keys) *v1alpha1.Component {
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{
		Namespace: w.Spec.Namespace, Name: w.Spec.Name, UID: w.UID, Generation: w.Generation,
		Labels: w.Spec.Labels, Annotations: map[string]string{},
	}}
	for k, v := range w.Annotations {
		c.Annotations[k] = v
	}
	c.Annotations[pk.viewOf] = w.Namespace + "/" + w.Name
	if w.Spec.Removal != "" {
		at := w.CreationTimestamp
		if t, err := time.Parse(time.RFC3339, w.Annotations[pk.removalRequested]); err == nil {
			at = metav1.NewTime(t)
		}
		c.DeletionTimestamp = &at
	}
	c.Spec = *w.Spec.Component.DeepCopy()
	c.Status.ObservedGeneration = w.Status.ObservedGeneration
	c.Status.Conditions = append([]metav1.Condition(nil), w.Status.Conditions...)
	c.Status.State = w.Status.State
	c.Status.Attempt = w.Status.Attempt.DeepCopy()
	silent := silentAt(lease)
	if !silent.IsZero() {
		c.Annotations[pk.silentAt] = silent.UTC().Format(time.RFC3339)
	}
	if silent.IsZero() || !now.Before(silent) {
		meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{
			Type: component.ConditionReady, Status: metav1.ConditionUnknown, ObservedGeneration: w.Generation,
			Reason: component.ReasonTargetUnreachable, Message: silentMessage(lease, silent),
		})
	}
	return c
}

// silentMessage says why an agent counts as silent.
func silentMessage(lease *coordinationv1.Lease, silent time.Time) string {
	if silent.IsZero() {
		if lease == nil {
			return "the cluster's agent has not connected to the hub yet (no Lease " + AgentLease + ")"
		}
		return "the cluster's agent has not renewed its Lease " + AgentLease + " yet"
	}
	return "the cluster's agent has not renewed its Lease " + AgentLease + " since " +
		lease.Spec.RenewTime.UTC().Format(time.RFC3339)
}

// pulledRecheck is when to look again at the pulled members of owned: the
// soonest time a live agent's Lease runs out, or, for a silent one, a
// while later, so that an agent that came back without a change of its
// ComponentWork's status is seen. 0: no pulled member.
func (r *Reconciler) pulledRecheck(owned map[string]*v1alpha1.Component, now time.Time) time.Duration {
	var recheck time.Duration
	for _, c := range owned {
		if !r.isPulled(c) {
			continue
		}
		at, err := time.Parse(time.RFC3339, c.Annotations[r.keys.silentAt])
		wait := silentRecheck
		if err == nil && at.After(now) {
			wait = at.Sub(now) + time.Second
		}
		recheck = soonest(recheck, wait)
	}
	return recheck
}

// silentRecheck is how often a set looks again at a pulled cluster whose
// agent is silent (its Lease's return also brings a pass: setup).
const silentRecheck = 30 * time.Second
