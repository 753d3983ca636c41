package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/operator"
)

// newClusterOperatorCommand is what `cluster create --operator` runs in the
// background: the reference operator in this binary, with the kubeconfig
// of the chart's ServiceAccount. Hidden: users run it through create.
func newClusterOperatorCommand(g *globalOptions) *cobra.Command {
	var sources []string
	cmd := &cobra.Command{
		Use:    "operator",
		Short:  "Run the reference operator in the foreground (what create --operator starts)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if g.kubeconfig == "" {
				return errors.New("operator needs --kubeconfig")
			}
			parsed, err := operator.ParseSources(sources)
			if err != nil {
				return err
			}
			ctrl.SetLogger(zap.New(zap.WriteTo(g.stderr)))
			scheme := runtime.NewScheme()
			if err := errors.Join(clientgoscheme.AddToScheme(scheme), v1alpha1.AddToScheme(scheme)); err != nil {
				return err
			}
			cfg, err := g.clientConfig().ClientConfig()
			if err != nil {
				return fmt.Errorf("loading %s: %w", g.kubeconfig, err)
			}
			mgr, err := ctrl.NewManager(cfg, ctrl.Options{
				Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
			})
			if err != nil {
				return fmt.Errorf("creating the operator's manager: %w", err)
			}
			if _, err := operator.Setup(mgr, operator.Options{Name: g.operatorName, Sources: parsed}); err != nil {
				return err
			}
			return mgr.Start(cmd.Context())
		},
	}
	cmd.Flags().StringArrayVar(&sources, "source", nil, "a source to serve, NAME=DIR (repeatable)")
	return cmd
}
