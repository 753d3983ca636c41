package fleet

import (
	"context"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// watchPulled turns pulled clusters on when the API server serves
// ComponentWorks: a set then also follows its ComponentWorks (their
// status is what the agents report) and the return of a silent agent's
// Lease; and the sweeper deletes the ComponentWorks whose agent removed
// their Component after their set was gone.
func (r *Reconciler) watchPulled(mgr ctrl.Manager, b *builder.Builder) (*builder.Builder, error) {
	_, err := mgr.GetRESTMapper().RESTMapping(v1alpha1.GroupVersion.WithKind("ComponentWork").GroupKind(), v1alpha1.GroupVersion.Version)
	if meta.IsNoMatchError(err) {
		ctrl.Log.WithName("fleet").Info("the API server does not serve ComponentWorks: pulled clusters are off; apply the CRD of config/crd/bases and restart to turn them on")
		return b, nil
	}
	if err != nil {
		return nil, fmt.Errorf("looking up the ComponentWork kind: %w", err)
	}
	if missing, err := missingPullRights(context.Background(), mgr.GetClient()); err != nil || missing != "" {
		if err != nil {
			return nil, err
		}
		ctrl.Log.WithName("fleet").Info("pulled clusters are off: the operator may not " + missing + " cluster-wide (the chart's ClusterRole <fullname>-agents grants it)")
		return b, nil
	}
	r.pulling = true
	b = b.Watches(&v1alpha1.ComponentWork{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		ns, name := o.GetLabels()[r.keys.setNamespace], o.GetLabels()[r.keys.setName]
		if ns == "" || name == "" {
			return nil
		}
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: ns, Name: name}}}
	})).Watches(&coordinationv1.Lease{}, handler.EnqueueRequestsFromMapFunc(r.setsOfLease), builder.WithPredicates(agentBack()))
	sweeper := &workSweeper{client: mgr.GetClient()}
	err = ctrl.NewControllerManagedBy(mgr).Named("componentwork-sweeper").For(&v1alpha1.ComponentWork{},
		builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			w, ok := o.(*v1alpha1.ComponentWork)
			return ok && removed(w)
		}))).Complete(sweeper)
	if err != nil {
		return nil, fmt.Errorf("setting up the ComponentWork sweeper: %w", err)
	}
	return b, nil
}

// missingPullRights says what the operator may not do, of what its watches
// of pulled clusters need (list and watch ComponentWorks and Leases in
// every namespace); empty: nothing. An operator without them (RBAC of its
// own, or the chart's with watchNamespaces) keeps pushed clusters only,
// rather than failing its watches.
func missingPullRights(ctx context.Context, c client.Client) (string, error) {
	for _, res := range []struct{ group, resource string }{{v1alpha1.GroupVersion.Group, "componentworks"}, {"coordination.k8s.io", "leases"}} {
		for _, verb := range []string{"list", "watch"} {
			review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
				ResourceAttributes: &authorizationv1.ResourceAttributes{Group: res.group, Resource: res.resource, Verb: verb}}}
			if err := c.Create(ctx, review); err != nil {
				return "", fmt.Errorf("asking whether the operator may %s %s: %w", verb, res.resource, err)
			}
			if !review.Status.Allowed {
				return verb + " " + res.resource, nil
			}
		}
	}
	return "", nil
}

// agentBack passes the Lease events that tell of an agent that connects or
// comes back: a new agent Lease, or a renewal after the Lease ran out.
// Ordinary renewals pass nothing: they change no set's plan.
func agentBack() predicate.Funcs {
	isAgent := func(o client.Object) bool { return o.GetName() == AgentLease }
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return isAgent(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			before, okBefore := e.ObjectOld.(*coordinationv1.Lease)
			after, okAfter := e.ObjectNew.(*coordinationv1.Lease)
			if !okBefore || !okAfter || !isAgent(after) || after.Spec.RenewTime == nil {
				return false
			}
			out := silentAt(before)
			return out.IsZero() || after.Spec.RenewTime.Time.After(out)
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// setsOfLease enqueues the sets with a ComponentWork in the namespace of an
// agent's Lease.
func (r *Reconciler) setsOfLease(ctx context.Context, o client.Object) []reconcile.Request {
	list := &v1alpha1.ComponentWorkList{}
	if err := r.client.List(ctx, list, client.InNamespace(o.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing the ComponentWorks of an agent's namespace", "namespace", o.GetNamespace())
		return nil
	}
	var out []reconcile.Request
	for _, w := range list.Items {
		if ns, name := w.Labels[r.keys.setNamespace], w.Labels[r.keys.setName]; ns != "" && name != "" {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: name}})
		}
	}
	return out
}

// removed tells whether the agent of w carried out its spec.removal.
func removed(w *v1alpha1.ComponentWork) bool {
	return w.Spec.Removal != "" && meta.IsStatusConditionTrue(w.Status.Conditions, v1alpha1.WorkConditionRemoved) &&
		w.DeletionTimestamp.IsZero()
}

// workSweeper deletes the ComponentWorks whose agent removed their
// Component: a set deletes them itself while it is there, but one that
// went on without a silent agent (left behind) is gone when the agent
// comes back and does the removal.
type workSweeper struct {
	client client.Client
}

// sweepGrace leaves a set the first go at its own ComponentWork.
const sweepGrace = 5 * time.Second

func (s *workSweeper) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	w := &v1alpha1.ComponentWork{}
	if err := s.client.Get(ctx, req.NamespacedName, w); err != nil || !removed(w) {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cond := meta.FindStatusCondition(w.Status.Conditions, v1alpha1.WorkConditionRemoved)
	if wait := time.Until(cond.LastTransitionTime.Add(sweepGrace)); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	if err := s.client.Delete(ctx, w, client.Preconditions{UID: &w.UID}); client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, fmt.Errorf("deleting ComponentWork %s/%s, whose agent removed its Component: %w", w.Namespace, w.Name, err)
	}
	return ctrl.Result{}, nil
}
