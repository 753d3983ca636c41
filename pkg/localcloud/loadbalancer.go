package localcloud

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// loadBalancers gives every Service of type LoadBalancer without a
// loadBalancerClass an address in its status.
type loadBalancers struct {
	client    client.Client
	addresses *addresses
	mu        sync.Mutex
	seeded    bool // the addresses that Services had at the start are claimed
}

// Reconcile sets or frees the address of one Service.
func (l *loadBalancers) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if err := l.seed(ctx); err != nil {
		return reconcile.Result{}, err
	}
	var svc corev1.Service
	if err := l.client.Get(ctx, req.NamespacedName, &svc); err != nil {
		if client.IgnoreNotFound(err) == nil {
			l.addresses.release(req.NamespacedName)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !ours(&svc) {
		l.addresses.release(req.NamespacedName)
		return reconcile.Result{}, nil
	}
	addr, err := l.addresses.get(req.NamespacedName)
	if err != nil {
		return reconcile.Result{}, err
	}
	ingress := []corev1.LoadBalancerIngress{{IP: addr.String(), IPMode: ptr.To(corev1.LoadBalancerIPModeVIP)}}
	if len(svc.Status.LoadBalancer.Ingress) == 1 && svc.Status.LoadBalancer.Ingress[0].IP == addr.String() {
		return reconcile.Result{}, nil
	}
	patch := client.MergeFrom(svc.DeepCopy())
	svc.Status.LoadBalancer.Ingress = ingress
	if err := l.client.Status().Patch(ctx, &svc, patch); client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, fmt.Errorf("setting the load balancer address %s of Service %s: %w", addr, req, err)
	}
	return reconcile.Result{}, nil
}

// seed claims the addresses that Services had at the start, once it has
// succeeded.
func (l *loadBalancers) seed(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seeded {
		return nil
	}
	if err := l.claimExisting(ctx); err != nil {
		return err
	}
	l.seeded = true
	return nil
}

// claimExisting records the addresses that Services already have, so that
// a restart hands none of them out again.
func (l *loadBalancers) claimExisting(ctx context.Context) error {
	var services corev1.ServiceList
	if err := l.client.List(ctx, &services); err != nil {
		return fmt.Errorf("listing the Services whose load balancer addresses are taken: %w", err)
	}
	for _, svc := range services.Items {
		if ours(&svc) && len(svc.Status.LoadBalancer.Ingress) > 0 {
			l.addresses.claim(client.ObjectKeyFromObject(&svc), svc.Status.LoadBalancer.Ingress[0].IP)
		}
	}
	return nil
}

// ours reports whether the Service's load balancer is this one's to give.
func ours(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.LoadBalancerClass == nil && svc.DeletionTimestamp == nil
}

// setupLoadBalancers registers the load balancer controller with mgr.
func setupLoadBalancers(mgr ctrl.Manager) error {
	err := ctrl.NewControllerManagedBy(mgr).Named("localcloud-loadbalancers").
		For(&corev1.Service{}).
		WithOptions(controllerOptions()).
		Complete(&loadBalancers{client: mgr.GetClient(), addresses: newAddresses()})
	if err != nil {
		return fmt.Errorf("setting up the local cluster's load balancers: %w", err)
	}
	return nil
}
