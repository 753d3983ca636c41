package localcloud

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// Options say which parts of the simulated cloud run.
type Options struct {
	// NoStorage leaves out the StorageClass and its provisioner.
	NoStorage bool
	// NoLoadBalancers leaves out the load balancer addresses.
	NoLoadBalancers bool
	// Logger receives the controllers' logs (controller-runtime's
	// ctrl.Log when unset).
	Logger logr.Logger
}

// controllerOptions are the options of every controller of the package.
// Their names need not be unique in the process: tests start one cloud for
// each cluster.
func controllerOptions() controller.Options {
	return controller.Options{SkipNameValidation: ptr.To(true)}
}

// Setup adds the parts of opts to mgr, whose cache must hold Services,
// PersistentVolumeClaims, PersistentVolumes and StorageClasses. It does not
// create the StorageClass: EnsureStorageClass does (Run does both).
func Setup(mgr ctrl.Manager, opts Options) error {
	if !opts.NoStorage {
		if err := setupProvisioner(mgr); err != nil {
			return err
		}
	}
	if !opts.NoLoadBalancers {
		return setupLoadBalancers(mgr)
	}
	return nil
}

// Cloud is the simulated cloud running against one cluster.
type Cloud struct {
	manager ctrl.Manager
}

// New creates the StorageClass (unless opts.NoStorage) and a manager of the
// parts of opts against the cluster of cfg; Start runs it.
func New(ctx context.Context, cfg *rest.Config, opts Options) (*Cloud, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building the local cloud's scheme: %w", err)
	}
	logger := opts.Logger
	if logger.GetSink() == nil {
		logger = ctrl.Log
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme, Logger: logger.WithName("localcloud"), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		return nil, fmt.Errorf("creating the local cloud's manager: %w", err)
	}
	if err := Setup(mgr, opts); err != nil {
		return nil, err
	}
	if !opts.NoStorage {
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		if err != nil {
			return nil, fmt.Errorf("creating the local cloud's client: %w", err)
		}
		if err := EnsureStorageClass(ctx, c); err != nil {
			return nil, err
		}
	}
	return &Cloud{manager: mgr}, nil
}

// Start runs the controllers until ctx ends.
func (c *Cloud) Start(ctx context.Context) error {
	if err := c.manager.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("running the local cloud: %w", err)
	}
	return nil
}

// Run creates the StorageClass and runs the parts of opts against the
// cluster of cfg until ctx ends.
func Run(ctx context.Context, cfg *rest.Config, opts Options) error {
	cloud, err := New(ctx, cfg, opts)
	if err != nil {
		return err
	}
	return cloud.Start(ctx)
}
