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
	account := c.Spec.ServiceAccountName
	if account == "" {
		account = r.defaultSA
	}
	if account == "" {
		return r.own, nil
	}
	user := "system:serviceaccount:" + c.Namespace + ":" + account
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
