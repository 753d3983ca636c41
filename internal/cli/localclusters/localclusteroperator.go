package localclusters

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/chartserve"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/definition"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/internal/operator"
)

// clusterOperatorFlags are the flags of `wavekit cluster operator`.
type clusterOperatorFlags struct {
	sources, charts []string
	chartsPort      int
	// definitions serves ComponentDefinitions in definitionGroups (empty:
	// any group but Kubernetes' and the operator's).
	definitions      bool
	definitionGroups []string
}

// newClusterOperatorCommand is what `cluster create --operator` runs in the
// background: the reference operator in this binary, with the kubeconfig
// of the chart's ServiceAccount. Hidden: users run it through create.
func newClusterOperatorCommand(s *session.Session) *cobra.Command {
	var f clusterOperatorFlags
	cmd := &cobra.Command{
		Use:    "operator",
		Short:  "Run the reference operator in the foreground (what create --operator starts)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runClusterOperator(cmd.Context(), s, f)
		},
	}
	cmd.Flags().StringArrayVar(&f.sources, "source", nil, "a source to serve, NAME=DIR (repeatable)")
	cmd.Flags().StringArrayVar(&f.charts, "charts", nil, "a directory of charts to serve as a Helm repository (repeatable)")
	cmd.Flags().IntVar(&f.chartsPort, "charts-port", chartserve.DefaultPort, "the Helm repository's port on 127.0.0.1")
	cmd.Flags().BoolVar(&f.definitions, "definitions", false, "serve ComponentDefinitions")
	cmd.Flags().StringSliceVar(&f.definitionGroups, "definition-groups", nil, "the API groups definitions may define kinds in (default: any but Kubernetes' and the operator's)")
	return cmd
}

// runClusterOperator serves the charts of the directories f.charts, if
// any, as a Helm repository on 127.0.0.1:f.chartsPort, and runs the
// operator, with definitions if f says so, until ctx ends.
func runClusterOperator(ctx context.Context, s *session.Session, f clusterOperatorFlags) error {
	if s.Kubeconfig == "" {
		return errors.New("operator needs --kubeconfig")
	}
	parsed, err := operator.ParseSources(f.sources)
	if err != nil {
		return err
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(s.Stderr)))
	if len(f.charts) > 0 {
		repository, err := chartserve.Start(f.chartsPort, f.charts...)
		if err != nil {
			return fmt.Errorf("the Helm repository of --charts (--charts-port of wavekit cluster create changes its port): %w", err)
		}
		defer repository.Close()
		ctrl.Log.Info("serving charts as a Helm repository", "url", repository.URL, "dirs", f.charts)
	}
	mgr, err := newOperatorManager(s, f.definitions)
	if err != nil {
		return err
	}
	_, definitionSources, err := operator.SetupWithSources(mgr, operator.Options{Name: s.OperatorName, Sources: parsed})
	if err != nil {
		return err
	}
	if f.definitions {
		_, err := definition.Setup(mgr, definition.Options{Name: s.OperatorName, Sources: definitionSources,
			AllowedGroups: f.definitionGroups})
		if err != nil {
			return fmt.Errorf("serving ComponentDefinitions: %w", err)
		}
	}
	if err := fleet.Setup(mgr, s.OperatorName, nil, nil, fleet.WithInputs(definitionSources.SetInputs().Reader(mgr.GetAPIReader()))); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// addToScheme adds the operator's types: client-go's, its own, and CRDs
// (which the definitions' controller writes).
func addToScheme(scheme *runtime.Scheme) error {
	return errors.Join(clientgoscheme.AddToScheme(scheme), v1alpha1.AddToScheme(scheme), apiextensionsv1.AddToScheme(scheme))
}

// newOperatorManager is the operator's manager, with the kubeconfig of
// --kubeconfig and no metrics or health endpoints; its cache holds what the
// definitions' controller reads when definitions is set.
func newOperatorManager(s *session.Session, definitions bool) (ctrl.Manager, error) {
	scheme := runtime.NewScheme()
	if err := addToScheme(scheme); err != nil {
		return nil, err
	}
	cfg, err := s.ClientConfig().ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", s.Kubeconfig, err)
	}
	cacheOpts := cache.Options{}
	if definitions {
		cacheOpts = definition.CacheFor(s.OperatorName, cacheOpts)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0", Cache: cacheOpts,
	})
	if err != nil {
		return nil, fmt.Errorf("creating the operator's manager: %w", err)
	}
	return mgr, nil
}
