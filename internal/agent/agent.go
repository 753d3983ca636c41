package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/agent/register"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/version"
)

// Options configure an agent.
type Options struct {
	// Hub reaches the hub with the agent's own credential: it may read the
	// ComponentWorks of Namespace, write their status, and renew the
	// agent's Lease there, nothing else.
	Hub *rest.Config
	// Namespace is the cluster's namespace on the hub.
	Namespace string
	// Local reaches the agent's own cluster, where it runs the Components.
	Local *rest.Config
	// Operator configures the reference operator that runs the Components
	// on the cluster (its name, sources, source cache).
	Operator operator.Options
	// LeaseDuration is the duration of the agent's Lease on the hub
	// (default DefaultLeaseDuration).
	LeaseDuration time.Duration
	// Holder names the agent in its Lease (default the namespace).
	Holder string
	// TokenFile, when set, holds the agent's ServiceAccount token on the
	// hub, which the agent renews past RotateAt of its lifetime (default
	// DefaultRotateAt); Hub then carries no token of its own.
	TokenFile string
	RotateAt  float64
	// CredentialsSecret, a Secret in the agent's own cluster, keeps the
	// agent's certificate and key, so that a restarted agent needs no
	// bootstrap token again. When Hub carries a bootstrap token (`wavekit
	// agent register --bootstrap`), the agent goes on with the certificate
	// of this Secret while it is valid, and otherwise requests one with the
	// token (certificate.go); it renews it past RotateAt of its lifetime.
	// Without a bootstrap token and without TokenFile, the Secret keeps the
	// agent's renewed ServiceAccount token instead (token.go), seeded from
	// Hub's.
	CredentialsSecret client.ObjectKey
	// CertificateLifetime is the lifetime the agent asks its certificates
	// for (default DefaultCertificateLifetime; at least 10 minutes, the
	// API server's floor).
	CertificateLifetime time.Duration
	// MetricsAddr and ProbeAddr are the local manager's endpoints ("0":
	// off, the default).
	MetricsAddr, ProbeAddr string
}

func (o *Options) check() error {
	var errs []error
	if o.Hub == nil {
		errs = append(errs, errors.New("no configuration of the hub"))
	}
	if o.Local == nil {
		errs = append(errs, errors.New("no configuration of the agent's own cluster"))
	}
	if o.Namespace == "" {
		errs = append(errs, errors.New("no namespace on the hub: give the one `wavekit agent register` printed"))
	}
	if o.LeaseDuration == 0 {
		o.LeaseDuration = DefaultLeaseDuration
	}
	if o.LeaseDuration < 2*time.Second {
		errs = append(errs, fmt.Errorf("lease duration %s: give at least 2s", o.LeaseDuration))
	}
	if o.RotateAt == 0 {
		o.RotateAt = DefaultRotateAt
	}
	if o.RotateAt < 0 || o.RotateAt >= 1 {
		errs = append(errs, fmt.Errorf("rotate at %v of the token's lifetime: give a part between 0 and 1", o.RotateAt))
	}
	errs = append(errs, o.checkCertificate()...)
	if o.TokenFile != "" && o.Hub != nil {
		if _, err := readClaims(o.TokenFile); err != nil {
			errs = append(errs, err)
		}
		o.Hub = rest.CopyConfig(o.Hub)
		o.Hub.BearerToken, o.Hub.BearerTokenFile = "", o.TokenFile
	}
	if o.Operator.Name == "" {
		o.Operator.Name = "wavekit.dev"
	}
	if o.Holder == "" {
		o.Holder = o.Namespace
	}
	if o.MetricsAddr == "" {
		o.MetricsAddr = "0"
	}
	if o.ProbeAddr == "" {
		o.ProbeAddr = "0"
	}
	return errors.Join(errs...)
}

// bootstrap tells whether the agent registers by certificate: Hub
// carries a bootstrap token.
func (o *Options) bootstrap() bool {
	return o.Hub != nil && register.IsBootstrapToken(o.Hub.BearerToken)
}

// checkCertificate checks the options of an agent that registers by
// certificate.
func (o *Options) checkCertificate() []error {
	if !o.bootstrap() {
		return nil
	}
	var errs []error
	if o.CredentialsSecret.Namespace == "" || o.CredentialsSecret.Name == "" {
		errs = append(errs, errors.New("the hub's kubeconfig has a bootstrap token: give the Secret to keep the agent's certificate in (NAMESPACE/NAME)"))
	}
	if o.TokenFile != "" {
		errs = append(errs, errors.New("the hub's kubeconfig has a bootstrap token: the agent gets a certificate, there is no token to keep in a file"))
	}
	if o.CertificateLifetime == 0 {
		o.CertificateLifetime = DefaultCertificateLifetime
	}
	if o.CertificateLifetime < 10*time.Minute {
		errs = append(errs, fmt.Errorf("certificate lifetime %s: give at least 10m, the API server's floor", o.CertificateLifetime))
	}
	return errs
}

// Run runs the agent until ctx ends: the reference operator on the
// agent's cluster, the sync of the ComponentWorks of its namespace on the
// hub, and its heartbeat.
func Run(ctx context.Context, opts Options) error {
	if err := opts.check(); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	var (
		certs  *certRotator
		tokens *secretToken
		err    error
	)
	switch {
	case opts.bootstrap():
		opts.Hub, certs, err = startCertificate(ctx, opts)
	case opts.CredentialsSecret.Name != "" && opts.TokenFile == "":
		opts.Hub, tokens, err = startToken(ctx, opts)
	}
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(scheme), v1alpha1.AddToScheme(scheme)); err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(opts.Local, ctrl.Options{Scheme: scheme,
		Metrics: metricsserver.Options{BindAddress: opts.MetricsAddr}, HealthProbeBindAddress: opts.ProbeAddr,
		Cache: cache.Options{DefaultTransform: cache.TransformStripManagedFields()},
		// Agents of simulated clusters share one process (tests, benchmarks).
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		return fmt.Errorf("agent: the manager of the agent's cluster: %w", err)
	}
	r, err := operator.Setup(mgr, opts.Operator)
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	hub, err := cluster.New(opts.Hub, func(o *cluster.Options) {
		o.Scheme = scheme
		o.Cache.DefaultNamespaces = map[string]cache.Config{opts.Namespace: {}}
		o.Cache.DefaultTransform = cache.TransformStripManagedFields()
	})
	if err != nil {
		return fmt.Errorf("agent: the hub: %w", err)
	}
	if err := mgr.Add(hub); err != nil {
		return err
	}
	if err := addChecks(mgr, hub, r.ReadyzCheck); err != nil {
		return fmt.Errorf("agent: health checks: %w", err)
	}
	if err := setupSync(mgr, hub, opts); err != nil {
		return err
	}
	hubWriter, err := client.New(opts.Hub, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("agent: a client of the hub: %w", err)
	}
	if err := mgr.Add(&heartbeat{hub: hubWriter, namespace: opts.Namespace, holder: opts.Holder, duration: opts.LeaseDuration}); err != nil {
		return err
	}
	if opts.TokenFile != "" {
		if err := mgr.Add(&rotator{hub: hubWriter, store: tokenFile(opts.TokenFile), rotateAt: opts.RotateAt}); err != nil {
			return err
		}
	}
	if tokens != nil {
		if err := mgr.Add(&rotator{hub: hubWriter, store: tokens, rotateAt: opts.RotateAt}); err != nil {
			return err
		}
	}
	if certs != nil {
		if err := mgr.Add(certs); err != nil {
			return err
		}
	}
	ctrl.Log.WithName("agent").Info("starting", "hub", opts.Hub.Host, "namespace", opts.Namespace)
	return mgr.Start(ctx)
}

// setupSync registers the syncer: a pass for each ComponentWork of the
// namespace on the hub that changes, and for the ComponentWork of each
// Component on the cluster whose status changes.
func setupSync(mgr ctrl.Manager, hub cluster.Cluster, opts Options) error {
	s := &syncer{hub: hub.GetClient(), local: mgr.GetClient(), namespace: opts.Namespace,
		keys: keysFor(opts.Operator.Name), version: version.String()}
	err := ctrl.NewControllerManagedBy(mgr).Named("componentwork").
		WatchesRawSource(source.Kind(hub.GetCache(), &v1alpha1.ComponentWork{}, &handler.TypedEnqueueRequestForObject[*v1alpha1.ComponentWork]{})).
		Watches(&v1alpha1.Component{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			work := o.GetLabels()[s.keys.work]
			if work == "" {
				return nil
			}
			return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: opts.Namespace, Name: work}}}
		})).Complete(s)
	if err != nil {
		return fmt.Errorf("agent: setting up the sync of ComponentWorks: %w", err)
	}
	return nil
}
