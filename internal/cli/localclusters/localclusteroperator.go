package localclusters

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/chartserve"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/internal/operator"
)

// newClusterOperatorCommand is what `cluster create --operator` runs in the
// background: the reference operator in this binary, with the kubeconfig
// of the chart's ServiceAccount. Hidden: users run it through create.
func newClusterOperatorCommand(s *session.Session) *cobra.Command {
	var sources, charts []string
	var chartsPort int
	cmd := &cobra.Command{
		Use:    "operator",
		Short:  "Run the reference operator in the foreground (what create --operator starts)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runClusterOperator(cmd.Context(), s, sources, charts, chartsPort)
		},
	}
	cmd.Flags().StringArrayVar(&sources, "source", nil, "a source to serve, NAME=DIR (repeatable)")
	cmd.Flags().StringArrayVar(&charts, "charts", nil, "a directory of charts to serve as a Helm repository (repeatable)")
	cmd.Flags().IntVar(&chartsPort, "charts-port", chartserve.DefaultPort, "the Helm repository's port on 127.0.0.1")
	return cmd
}

// runClusterOperator serves the charts of the directories charts, if any,
// as a Helm repository on 127.0.0.1:chartsPort, and runs the operator until
// ctx ends.
func runClusterOperator(ctx context.Context, s *session.Session, sources, charts []string, chartsPort int) error {
	if s.Kubeconfig == "" {
		return errors.New("operator needs --kubeconfig")
	}
	parsed, err := operator.ParseSources(sources)
	if err != nil {
		return err
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(s.Stderr)))
	if len(charts) > 0 {
		repository, err := chartserve.Start(chartsPort, charts...)
		if err != nil {
			return fmt.Errorf("the Helm repository of --charts (--charts-port of wavekit cluster create changes its port): %w", err)
		}
		defer repository.Close()
		ctrl.Log.Info("serving charts as a Helm repository", "url", repository.URL, "dirs", charts)
	}
	mgr, err := newOperatorManager(s)
	if err != nil {
		return err
	}
	if _, err := operator.Setup(mgr, operator.Options{Name: s.OperatorName, Sources: parsed}); err != nil {
		return err
	}
	if err := fleet.Setup(mgr, s.OperatorName, nil, nil); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// newOperatorManager is the operator's manager, with the kubeconfig of
// --kubeconfig and no metrics or health endpoints.
func newOperatorManager(s *session.Session) (ctrl.Manager, error) {
	scheme := runtime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(scheme), v1alpha1.AddToScheme(scheme)); err != nil {
		return nil, err
	}
	cfg, err := s.ClientConfig().ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", s.Kubeconfig, err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		return nil, fmt.Errorf("creating the operator's manager: %w", err)
	}
	return mgr, nil
}
