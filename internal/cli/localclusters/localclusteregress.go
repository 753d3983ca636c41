package localclusters

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/localcluster"
	"github.com/wavekit-dev/wavekit/pkg/testenv/egress"
)

// egressGate returns how the cluster runs its egress gate: by this binary.
func egressGate() (*localcluster.EgressGate, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the wavekit binary, which runs the egress gate: %w", err)
	}
	return &localcluster.EgressGate{Executable: exe}, nil
}

// newClusterEgressGateCommand is what `cluster create` runs in the
// background before kube-apiserver: the gate of package egress on the
// socket that kube-apiserver's egress selector names. Hidden: users run it
// through create.
func newClusterEgressGateCommand(s *session.Session) *cobra.Command {
	var socket string
	cmd := &cobra.Command{
		Use:    "egress-gate",
		Short:  "Run the local cluster's egress gate in the foreground (what create starts): kube-apiserver reaches loopback through it, and nothing else",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEgressGate(cmd.Context(), s, socket)
		},
	}
	cmd.Flags().StringVar(&socket, "socket", "", "the Unix socket to listen on")
	return cmd
}

// runEgressGate serves the gate on socket until ctx ends, naming the
// owners of refused addresses from the cluster of --kubeconfig once its API
// server answers.
func runEgressGate(ctx context.Context, s *session.Session, socket string) error {
	if s.Kubeconfig == "" || socket == "" {
		return errors.New("egress-gate needs --kubeconfig and --socket")
	}
	cfg, err := s.ClientConfig().ClientConfig()
	if err != nil {
		return fmt.Errorf("loading %s: %w", s.Kubeconfig, err)
	}
	gate, err := egress.Listen(socket, zap.New(zap.WriteTo(s.Stderr)))
	if err != nil {
		return err
	}
	if err := gate.WatchCluster(cfg); err != nil {
		return errors.Join(err, gate.Close())
	}
	<-ctx.Done()
	return gate.Close()
}
