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
	"github.com/wavekit-dev/wavekit/pkg/localcloud"
)

// cloudFlags are the flags of cluster create that turn each part of the
// simulated cloud off.
type cloudFlags struct {
	storage, loadBalancers bool
}

func (f *cloudFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.storage, "storage", true, "run a default StorageClass ("+localcloud.StorageClassName+") whose provisioner binds every claim of it, or of no class, to a volume it creates")
	cmd.Flags().BoolVar(&f.loadBalancers, "load-balancers", true, "give every Service of type LoadBalancer an address from "+localcloud.AddressRange)
}

// cloud returns how the cluster runs its simulated cloud: by this binary.
func (f *cloudFlags) cloud() (*localcluster.Cloud, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the wavekit binary, which runs the simulated cloud: %w", err)
	}
	return &localcluster.Cloud{Executable: exe, NoStorage: !f.storage, NoLoadBalancers: !f.loadBalancers}, nil
}

// newClusterCloudCommand is what `cluster create` runs in the background:
// the simulated cloud of package localcloud. Hidden: users run it through
// create.
func newClusterCloudCommand(s *session.Session) *cobra.Command {
	var flags cloudFlags
	cmd := &cobra.Command{
		Use:    "cloud",
		Short:  "Run the local cluster's storage provisioner and load balancer addresses in the foreground (what create starts)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runClusterCloud(cmd.Context(), s, flags)
		},
	}
	flags.add(cmd)
	return cmd
}

// runClusterCloud runs the simulated cloud against the cluster of
// --kubeconfig until ctx ends.
func runClusterCloud(ctx context.Context, s *session.Session, flags cloudFlags) error {
	if s.Kubeconfig == "" {
		return errors.New("cloud needs --kubeconfig")
	}
	cfg, err := s.ClientConfig().ClientConfig()
	if err != nil {
		return fmt.Errorf("loading %s: %w", s.Kubeconfig, err)
	}
	return localcloud.Run(ctx, cfg, localcloud.Options{
		NoStorage: !flags.storage, NoLoadBalancers: !flags.loadBalancers, Logger: zap.New(zap.WriteTo(s.Stderr)),
	})
}
