package fleet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// Reconciler reconciles ComponentSets.
type Reconciler struct {
	// client reads from the manager's cache and writes to the API server.
	client client.Client
	// live reads the API server directly: a cluster is removed only when
	// a fresh list confirms it left the selection.
	live client.Reader
	// secrets read the metadata of the Secrets of the clusters and of the
	// set's copies, each kind from a cache of its own (clustersecrets.go).
	secrets secretCaches
	keys    keys
	// recorder records the set's Events.
	recorder recorder.EventRecorder
	// capi is the preferred version of Cluster API's Cluster kind when the
	// API server served it at start-up; empty otherwise.
	capi schema.GroupVersionKind
	// notifier is told of waves done or held and of clusters that do not
	// answer; nil: alerts are off.
	notifier notify.Sink
	// operator is the operator's name, for the notifier.
	operator string
	// pulling: the API server serves ComponentWorks, so clusters may be
	// pulled (pull.go).
	pulling bool
	// inputs reads the sets' spec.inputs; nil: lists only.
	inputs *inputs.Reader
}

// Reconcile makes the set's Components follow its clusters and template.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	set := &v1alpha1.ComponentSet{}
	if err := r.client.Get(ctx, req.NamespacedName, set); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !set.DeletionTimestamp.IsZero() {
		return r.delete(ctx, set)
	}
	if !controllerutil.ContainsFinalizer(set, r.keys.finalizer) {
		patch := client.MergeFromWithOptions(set.DeepCopy(), client.MergeFromWithOptimisticLock{})
		controllerutil.AddFinalizer(set, r.keys.finalizer)
		if err := r.client.Patch(ctx, set, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding the finalizer to ComponentSet %s/%s: %w", set.Namespace, set.Name, err)
		}
	}
	before := set.Status.DeepCopy()
	recheck, unreachable, err := r.rollOut(ctx, set)
	statusErr := r.writeStatus(ctx, set, before)
	if statusErr == nil {
		r.notify(set, before, unreachable)
	}
	if apierrors.IsConflict(statusErr) {
		// The set changed since the cache read it: its event brings the
		// next pass, which plans from the newer set.
		statusErr = nil
	}
	return ctrl.Result{RequeueAfter: recheck}, errors.Join(err, statusErr)
}

// rollOut plans and, unless the set is paused, writes the Components,
// removes those of clusters that left and keeps the set's copies of the
// clusters' kubeconfigs; the status says what it found. It returns when to
// look again at a cluster that left and does not answer (0: at the next
// event), and the selected clusters that do not answer.
func (r *Reconciler) rollOut(ctx context.Context, set *v1alpha1.ComponentSet) (time.Duration, []string, error) {
	reasonBefore := ""
	if ready := meta.FindStatusCondition(set.Status.Conditions, component.ConditionReady); ready != nil {
		reasonBefore = ready.Reason
	}
	p, err := r.planPass(ctx, set)
	var unread *inputsError
	if errors.As(err, &unread) {
		return r.inputsFailed(set, unread, reasonBefore), nil, nil
	}
	if err != nil {
		return 0, nil, r.unknown(set, err, reasonBefore)
	}
	if p == nil {
		return 0, nil, nil // invalid: the status says why
	}
	r.inputsRead(set, p)
	forgetRejoined(&set.Status, p.Members)
	if set.Spec.Paused {
		summarize(set, p, pausedDepartures(set, p.Leaving, r.keys), &set.Status)
		return inputsInterval(set), unreachableClusters(p), nil
	}
	errs := r.writeComponents(ctx, set, p.Writes)
	recheck := inputsInterval(set)
	var written []string
	for i, w := range p.Writes {
		if m := w.Member; errs[i] == nil && (m.Component == nil || m.Component.Annotations[r.keys.specHash] != m.Desired.Hash) {
			written = append(written, m.Cluster.Name)
		}
	}
	departures, removed, again, err := r.removeLeaving(ctx, set, p.Leaving)
	recheck = soonest(soonest(recheck, again), r.pulledRecheck(memberComponents(p), time.Now()))
	errs = append(errs, err, r.keepCopies(ctx, memberComponents(p)), r.passRequest(ctx, set, p.Members))
	summarize(set, p, departures, &set.Status)
	for _, e := range rolloutEvents(set, p, written, removed, reasonBefore) {
		r.recorder.Eventf(set, nil, e.Type, e.Reason, e.Action, "%s", e.Note)
	}
	if err := errors.Join(errs...); err != nil {
		setConditions(&set.Status, set.Generation, ReasonProgressing, false, err.Error())
		return recheck, unreachableClusters(p), err
	}
	return recheck, unreachableClusters(p), nil
}

// planPass reads the set's Components, inputs and clusters and plans; a
// plan with members leaving is made again from a fresh list of the API
// server, since only that may confirm that they left. A nil plan without
// an error: the set is invalid, and its status says why. Inputs that
// cannot be read give an *inputsError: the set keeps its members.
func (r *Reconciler) planPass(ctx context.Context, set *v1alpha1.ComponentSet) (*plan, error) {
	owned, err := r.ownedComponents(ctx, set)
	if err != nil {
		return nil, err
	}
	list, err := r.readInputs(ctx, set)
	if err != nil {
		return nil, err
	}
	planFrom := func(from clusterReaders) (*plan, error) {
		members, err := r.selectMembers(ctx, set, from, list)
		if err != nil {
			return nil, err
		}
		p, err := makePlan(set, members, owned, r.keys)
		if err != nil {
			return nil, &invalidError{err: err}
		}
		return p, nil
	}
	p, err := planFrom(r.cachedReaders())
	if err == nil && len(p.Leaving) > 0 && !set.Spec.Paused {
		p, err = planFrom(readersOf(r.live))
	}
	if err == nil {
		p.Inputs = len(list)
	}
	var invalid *invalidError
	if errors.As(err, &invalid) {
		setConditions(&set.Status, set.Generation, ReasonInvalid, true, err.Error())
		return nil, nil
	}
	return p, err
}

// invalidError says the set asks for what cannot be: it writes nothing
// until it changes.
type invalidError struct{ err error }

func (e *invalidError) Error() string { return e.err.Error() }
func (e *invalidError) Unwrap() error { return e.err }

// selectMembers are the set's members: its selected clusters, or its
// inputs on them or on the operator's cluster.
func (r *Reconciler) selectMembers(ctx context.Context, set *v1alpha1.ComponentSet, from clusterReaders, list []inputs.Input) ([]cluster, error) {
	var clusters []cluster
	if set.Spec.Placement != nil {
		var err error
		if clusters, err = r.selectClusters(ctx, set, from); err != nil {
			return nil, err
		}
	}
	members, err := expand(set, clusters, list)
	if err != nil {
		return nil, &invalidError{err: err}
	}
	return members, nil
}

// removeLeaving deletes (policy Delete: departure.go) or releases (Orphan)
// the Components of the clusters that left. It returns where the deleted
// ones stand, the clusters whose removal began in this pass, and when to
// look again.
func (r *Reconciler) removeLeaving(ctx context.Context, set *v1alpha1.ComponentSet, leaving []*v1alpha1.Component) ([]departure, []string, time.Duration, error) {
	var departures []departure
	var removed []string
	var recheck time.Duration
	var errs []error
	now := time.Now()
	for _, c := range leaving {
		began := c.DeletionTimestamp.IsZero()
		var err error
		if set.Spec.RemovalPolicy == v1alpha1.RemovalOrphan {
			err = r.release(ctx, c)
		} else {
			var d departure
			var again time.Duration
			d, again, err = r.depart(ctx, set, c, now)
			departures = append(departures, d)
			recheck = soonest(recheck, again)
		}
		if err == nil && began {
			removed = append(removed, memberKey(c, r.keys))
		}
		errs = append(errs, err)
	}
	return departures, removed, recheck, errors.Join(errs...)
}

// soonest is the earlier of two rechecks, 0 meaning none.
func soonest(a, b time.Duration) time.Duration {
	if a == 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

// memberComponents are the Components of the selected clusters, by cluster.
func memberComponents(p *plan) map[string]*v1alpha1.Component {
	out := map[string]*v1alpha1.Component{}
	for _, m := range p.Members {
		if m.Component != nil {
			out[m.Cluster.Name] = m.Component
		}
	}
	return out
}

// unknown reports that the set's clusters or Components could not be read:
// nothing is written or removed, the rollout summary stays as it was, and
// the error is returned to try again with backoff.
func (r *Reconciler) unknown(set *v1alpha1.ComponentSet, err error, reasonBefore string) error {
	message := fmt.Sprintf("%v; nothing was created, changed or removed", err)
	setConditions(&set.Status, set.Generation, ReasonClusterListFailed, false, message)
	if reasonBefore != ReasonClusterListFailed {
		r.recorder.Eventf(set, nil, "Warning", ReasonClusterListFailed, "ListClusters", "%s", bound(message, maxEventNote))
	}
	return err
}

// selectClusters lists, with from, the clusters of the set's namespace
// that its clusterSelector selects: cluster Secrets, then Cluster API
// Clusters of other names. Only metadata is read: the kubeconfigs are the
// Components' to read.
func (r *Reconciler) selectClusters(ctx context.Context, set *v1alpha1.ComponentSet, from clusterReaders) ([]cluster, error) {
	selector, err := metav1.LabelSelectorAsSelector(&set.Spec.Placement.ClusterSelector)
	if err != nil {
		return nil, fmt.Errorf("spec.placement.clusterSelector of ComponentSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	registered, err := labels.NewRequirement(r.keys.cluster, selection.Equals, []string{"true"})
	if err != nil {
		return nil, fmt.Errorf("the cluster label %s: %w", r.keys.cluster, err)
	}
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("SecretList"))
	if err := from.registered.List(ctx, list, client.InNamespace(set.Namespace),
		client.MatchingLabelsSelector{Selector: selector.Add(*registered)}); err != nil {
		return nil, fmt.Errorf("listing the cluster Secrets of namespace %s: %w", set.Namespace, err)
	}
	clusters := make([]cluster, 0, len(list.Items))
	names := map[string]bool{}
	for _, s := range list.Items {
		clusters = append(clusters, cluster{Name: s.Name, Labels: s.Labels, Annotations: s.Annotations,
			Pull: r.pulling && s.Labels[r.keys.pull] == "true"})
		names[s.Name] = true
	}
	if r.capi.Empty() {
		return clusters, nil
	}
	capi, err := r.selectCAPIClusters(ctx, set, selector, from)
	if err != nil {
		return nil, err
	}
	for _, c := range capi {
		if !names[c.Name] { // a cluster Secret of that name wins
			clusters = append(clusters, c)
		}
	}
	return clusters, nil
}

// clusterReaders are what selectClusters reads with: Cluster API's
// Clusters, the registered clusters' Secrets and Cluster API's kubeconfig
// Secrets.
type clusterReaders struct {
	clusters, registered, kubeconfigs client.Reader
}

// readersOf reads everything with reader.
func readersOf(reader client.Reader) clusterReaders {
	return clusterReaders{clusters: reader, registered: reader, kubeconfigs: reader}
}

// cachedReaders read from the caches.
func (r *Reconciler) cachedReaders() clusterReaders {
	return clusterReaders{clusters: r.client, registered: r.secrets.registered, kubeconfigs: r.secrets.kubeconfigs}
}

// ownedComponents are the Components of the set's namespace it controls,
// by the cluster their annotation names.
func (r *Reconciler) ownedComponents(ctx context.Context, set *v1alpha1.ComponentSet) (map[string]*v1alpha1.Component, error) {
	list := &v1alpha1.ComponentList{}
	if err := r.client.List(ctx, list, client.InNamespace(set.Namespace)); err != nil {
		return nil, fmt.Errorf("listing the Components of namespace %s: %w", set.Namespace, err)
	}
	owned := map[string]*v1alpha1.Component{}
	for i := range list.Items {
		c := &list.Items[i]
		ref := metav1.GetControllerOf(c)
		if ref == nil || ref.UID != set.UID {
			continue
		}
		if c.Annotations[r.keys.member] != "" || c.Annotations[r.keys.clusterName] != "" {
			owned[memberKey(c, r.keys)] = c
		}
	}
	pulled, err := r.pulledComponents(ctx, set)
	for name, c := range pulled {
		owned[name] = c
	}
	return owned, err
}

// parallelWrites bounds the Component writes of one pass that are under
// way at once: one after the other, ten clusters' writes took as long as
// their Components' whole install on a busy hub.
const parallelWrites = 8

// writeComponents makes the writes, parallelWrites at a time, and returns
// their errors. A conflict is none: the cache had an older Component, and
// its event brings the next pass, which plans from the newer one.
func (r *Reconciler) writeComponents(ctx context.Context, set *v1alpha1.ComponentSet, writes []write) []error {
	errs := make([]error, len(writes))
	slots := make(chan struct{}, parallelWrites)
	var wg sync.WaitGroup
	for i, w := range writes {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			if err := r.writeComponent(ctx, set, w.Member); !apierrors.IsConflict(err) {
				errs[i] = err
			}
		})
	}
	wg.Wait()
	return errs
}

// writeComponent creates m's Component, or writes the current template and
// wave to it.
func (r *Reconciler) writeComponent(ctx context.Context, set *v1alpha1.ComponentSet, m *member) error {
	if m.Cluster.Pull {
		return r.writeWork(ctx, set, m)
	}
	c := r.componentOf(set, m)
	if m.Component != nil {
		if err := r.client.Update(ctx, c); err != nil {
			return fmt.Errorf("writing the template to Component %s/%s of cluster %s: %w", c.Namespace, c.Name, m.Cluster.Name, err)
		}
		return nil
	}
	if err := controllerutil.SetControllerReference(set, c, r.client.Scheme()); err != nil {
		return fmt.Errorf("owning Component %s/%s: %w", c.Namespace, c.Name, err)
	}
	err := r.client.Create(ctx, c)
	if apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating Component %s/%s for cluster %s: a Component of that name exists that ComponentSet %s does not own", c.Namespace, c.Name, m.Cluster.Name, set.Name)
	}
	if err != nil {
		return fmt.Errorf("creating Component %s/%s for cluster %s: %w", c.Namespace, c.Name, m.Cluster.Name, err)
	}
	return nil
}

// componentOf is m's Component as the set writes it: its Component, or a
// new one, with the current template, labels and wave.
func (r *Reconciler) componentOf(set *v1alpha1.ComponentSet, m *member) *v1alpha1.Component {
	c := m.Component
	if c == nil {
		c = &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: set.Namespace, Name: m.componentName(set)}}
	} else {
		c = c.DeepCopy()
	}
	if c.Labels == nil {
		c.Labels = map[string]string{}
	}
	for k, v := range m.Desired.Labels {
		c.Labels[k] = v
	}
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	r.memberAnnotations(c.Annotations, m.Cluster)
	c.Annotations[r.keys.specHash] = m.Desired.Hash
	c.Annotations[r.keys.wave] = strconv.Itoa(m.Wave)
	c.Spec = m.Desired.Spec
	return c
}

// release removes the set's owner reference and annotations from c, which
// then stays as a Component of its own.
func (r *Reconciler) release(ctx context.Context, c *v1alpha1.Component) error {
	if r.isPulled(c) {
		return r.releasePulled(ctx, c)
	}
	patch := client.MergeFromWithOptions(c.DeepCopy(), client.MergeFromWithOptimisticLock{})
	refs := c.OwnerReferences[:0:0]
	for _, ref := range c.OwnerReferences {
		if ref.Controller == nil || !*ref.Controller {
			refs = append(refs, ref)
		}
	}
	c.OwnerReferences = refs
	delete(c.Annotations, r.keys.specHash)
	delete(c.Annotations, r.keys.wave)
	if err := r.client.Patch(ctx, c, patch); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("releasing Component %s/%s: %w", c.Namespace, c.Name, err)
	}
	return nil
}

// writeStatus writes the status if it changed.
func (r *Reconciler) writeStatus(ctx context.Context, set *v1alpha1.ComponentSet, before *v1alpha1.ComponentSetStatus) error {
	if equality.Semantic.DeepEqual(before, &set.Status) {
		return nil
	}
	if err := r.client.Status().Update(ctx, set); err != nil {
		return fmt.Errorf("writing the status of ComponentSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	return nil
}
