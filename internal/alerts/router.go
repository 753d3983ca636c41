package alerts

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// Reasons of the Warning Events on an Alert that cannot send.
const (
	ReasonProviderNotFound  = "ProviderNotFound"
	ReasonInvalidExpression = "InvalidExpression"
)

// SecretReaders returns what reads the Secrets of a namespace's Providers.
type SecretReaders func(namespace string) (client.Reader, error)

// router is the notify.Router of the reference operator: an event goes to
// the Provider of every Alert of the event's own namespace that selects it.
type router struct {
	// cache reads Alerts and Providers.
	cache   client.Reader
	secrets SecretReaders
	// events records Warnings on Alerts that cannot send; nil: none.
	events recorder.EventRecorder
}

// Route lists the Alerts of e's namespace, and no other, and returns the
// Provider of each that selects e, once per Provider (notify.Target.Key is
// namespace/name). An Alert that cannot send (its Provider missing, an
// expression that does not compile) is an error and a Warning Event on it;
// the others still send.
func (r *router) Route(ctx context.Context, e notify.Event) ([]notify.Target, error) {
	namespace := e.Object.Namespace
	if namespace == "" {
		return nil, nil // a cluster-scoped object belongs to no tenant
	}
	var list v1alpha1.AlertList
	if err := r.cache.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing the Alerts of namespace %s: %w", namespace, err)
	}
	var targets []notify.Target
	var errs []error
	for i := range list.Items {
		alert := &list.Items[i]
		target, err := r.target(ctx, alert, e)
		if err != nil {
			errs = append(errs, fmt.Errorf("Alert %s/%s: %w", alert.Namespace, alert.Name, err))
			continue
		}
		if target != nil {
			targets = append(targets, *target)
		}
	}
	return targets, errors.Join(errs...)
}

// target is where alert sends e, or nil when it does not send it (it does
// not select it, or its Provider is suspended).
func (r *router) target(ctx context.Context, alert *v1alpha1.Alert, e notify.Event) (*notify.Target, error) {
	selected, err := selects(alert, e)
	if err != nil {
		r.warn(alert, ReasonInvalidExpression, err.Error())
		return nil, err
	}
	if !selected {
		return nil, nil
	}
	provider := &v1alpha1.Provider{}
	key := client.ObjectKey{Namespace: alert.Namespace, Name: alert.Spec.ProviderRef.Name}
	if err := r.cache.Get(ctx, key, provider); err != nil {
		if apierrors.IsNotFound(err) {
			r.warn(alert, ReasonProviderNotFound, "spec.providerRef: Provider "+key.String()+" does not exist")
		}
		return nil, fmt.Errorf("reading its Provider %s: %w", key, err)
	}
	if provider.Spec.Suspend {
		return nil, nil
	}
	return &notify.Target{Key: key.String(), Notifier: &providerNotifier{provider: provider, secrets: r.secrets}}, nil
}

func (r *router) warn(alert *v1alpha1.Alert, reason, note string) {
	if r.events != nil {
		r.events.Eventf(alert, nil, "Warning", reason, "Route", "%s", note)
	}
}

// providerNotifier sends through a Provider: it reads the Provider's Secret
// at each try, as the namespace's identity, and builds its notifier, so
// that a Secret's data stays in memory only while an alert is sent.
type providerNotifier struct {
	provider *v1alpha1.Provider
	secrets  SecretReaders
}

// Notify sends e through the Provider.
func (p *providerNotifier) Notify(ctx context.Context, e notify.Event) error {
	reader, err := p.secrets(p.provider.Namespace)
	if err != nil {
		return fmt.Errorf("Provider %s/%s: %w", p.provider.Namespace, p.provider.Name, err)
	}
	data, err := ReadSecret(ctx, reader, p.provider)
	if err != nil {
		return err
	}
	n, err := NotifierFor(p.provider, data)
	if err != nil {
		return notify.Permanent(err)
	}
	return n.Notify(ctx, e)
}
