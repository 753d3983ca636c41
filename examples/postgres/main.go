package main

import (
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/external/postgres"
)

// operatorName is the prefix of the annotations the generator writes
// (webapp.example.wavekit.dev/apply-order), the field owner and the
// finalizer.
const operatorName = "webapp.example.wavekit.dev"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "webapp-operator:", err)
		os.Exit(1)
	}
}

func run() error {
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return fmt.Errorf("building scheme: %w", err)
	}
	addToScheme(scheme)
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	if err := setup(mgr, external.Options{}); err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}

// setup registers the WebApp reconciler with mgr, its external dependents
// polled as polls says.
func setup(mgr ctrl.Manager, polls external.Options) error {
	r := component.NewReconciler[*WebApp](operatorName, webAppObjects(operatorName), component.ReconcilerOptions{
		// The kinds PostgresRole and PostgresDatabase of the render.
		ExternalProviders: postgres.Providers(),
		External:          polls,
	})
	if err := r.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the WebApp reconciler: %w", err)
	}
	return nil
}
