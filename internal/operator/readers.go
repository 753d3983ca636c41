package operator

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// readers make the reads the operator does for a Component in its own
// namespace (spec.valuesFrom, spec.chart.secretRef): as the Component's
// service account when it names one or the lockdown gives it one, so that a
// tenant reaches no Secret its account may not read; else as the operator.
// Nothing is cached: a Secret's content never stays in memory. Every read
// is counted in wavekit_api_requests_total.
type readers struct {
	config    *rest.Config
	scheme    *runtime.Scheme
	own       client.Reader
	defaultSA string

	mu     sync.Mutex
	byUser map[string]client.Client
}

// forComponent returns the reader of c's identity.
func (r *readers) forComponent(c *v1alpha1.Component) (client.Reader, error) {
	return r.forAccount(c.Namespace, c.Spec.ServiceAccountName)
}

// forNamespace returns the reader of what an object of namespace that names
// no service account reads as: the lockdown's service account of namespace,
// else the operator.
func (r *readers) forNamespace(namespace string) (client.Reader, error) {
	return r.forAccount(namespace, "")
}

// forAccount returns the reader of the service account of namespace, or
// the lockdown's when account is "", or the operator's without a lockdown.
func (r *readers) forAccount(namespace, account string) (client.Reader, error) {
	if account == "" {
		account = r.defaultSA
	}
	if account == "" {
		return r.own, nil
	}
	user := "system:serviceaccount:" + namespace + ":" + account
	r.mu.Lock()
	defer r.mu.Unlock()
	if cl, ok := r.byUser[user]; ok {
		return cl, nil
	}
	cfg := component.CountRequests(r.config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	cl, err := client.New(cfg, client.Options{Scheme: r.scheme})
	if err != nil {
		return nil, fmt.Errorf("creating a client as %s: %w", user, err)
	}
	if r.byUser == nil {
		r.byUser = map[string]client.Client{}
	}
	r.byUser[user] = cl
	return cl, nil
}

// countedReaders returns the readers of mgr's cluster, whose requests are
// counted; defaultSA is the lockdown's service account.
func countedReaders(mgr ctrl.Manager, defaultSA string) (*readers, error) {
	own, err := client.New(component.CountRequests(mgr.GetConfig()), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, fmt.Errorf("creating the operator's reader: %w", err)
	}
	return &readers{config: mgr.GetConfig(), scheme: mgr.GetScheme(), own: own, defaultSA: defaultSA}, nil
}

// NamespaceReaders returns what reads, for an object of a namespace that
// names no service account (an Alert's Provider), the Secrets it names: as
// the namespace's defaultSA (the lockdown's service account) when it is
// set, so that a tenant reaches no Secret its account may not read; else
// as the operator. Nothing is cached, and every read is counted.
func NamespaceReaders(mgr ctrl.Manager, defaultSA string) (func(namespace string) (client.Reader, error), error) {
	rd, err := countedReaders(mgr, defaultSA)
	if err != nil {
		return nil, err
	}
	return rd.forNamespace, nil
}
