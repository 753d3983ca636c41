package alerts

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// Options configure the reference operator's alerts.
type Options struct {
	// Name is the operator's name: its Events' reporter and the metrics'
	// label.
	Name string
	// Secrets reads the Secrets of a namespace's Providers (see
	// operator.NamespaceReaders).
	Secrets SecretReaders
	// Dispatch tunes the queue, retries, deduplication and rate limit.
	Dispatch notify.Options
}

// Setup adds the dispatcher of the Alerts and Providers to mgr and returns
// it, for the Component and ComponentSet reconcilers to send to. When the
// API server does not serve Alerts (the CRDs of an older release: Helm does
// not upgrade a chart's CRDs), it logs that and returns nil: alerts are
// off and everything else runs.
func Setup(mgr ctrl.Manager, opts Options) (notify.Sink, error) {
	for _, kind := range []string{"Alert", "Provider"} {
		gk := v1alpha1.GroupVersion.WithKind(kind).GroupKind()
		if _, err := mgr.GetRESTMapper().RESTMapping(gk, v1alpha1.GroupVersion.Version); err != nil {
			if meta.IsNoMatchError(err) {
				ctrl.Log.WithName("alerts").Info("the API server does not serve " + kind + "s: alerts are off; apply the CRDs of config/crd/bases and restart to turn them on")
				return nil, nil
			}
			return nil, fmt.Errorf("looking up the %s kind: %w", kind, err)
		}
	}
	opts.Dispatch.Name = opts.Name
	r := &router{cache: mgr.GetClient(), secrets: opts.Secrets, events: mgr.GetEventRecorder(opts.Name)}
	d := notify.NewDispatcher(r, opts.Dispatch)
	if err := mgr.Add(d); err != nil {
		return nil, fmt.Errorf("adding the alerts' dispatcher: %w", err)
	}
	return d, nil
}
