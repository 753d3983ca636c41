package localcluster

import (
	"context"
	"fmt"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/localcloud"
)

// cloudLog names the log of the simulated cloud's process.
const cloudLog = "localcloud"

// Cloud says how the cluster runs its simulated cloud (package localcloud):
// a default StorageClass whose claims bind, and addresses for Services of
// type LoadBalancer.
type Cloud struct {
	// Executable is the wavekit binary that runs it (wavekit cluster
	// cloud).
	Executable string `json:"executable"`
	// NoStorage leaves out the StorageClass and its provisioner.
	NoStorage bool `json:"noStorage,omitempty"`
	// NoLoadBalancers leaves out the load balancer addresses.
	NoLoadBalancers bool `json:"noLoadBalancers,omitempty"`
}

// runs reports whether the cloud has a part to run.
func (c *Cloud) runs() bool {
	return c != nil && !(c.NoStorage && c.NoLoadBalancers)
}

// CloudLog is the file the simulated cloud logs into.
func (c *Cluster) CloudLog() string { return c.path("logs", cloudLog+".log") }

// startCloud runs `wavekit cluster cloud` of the recorded executable with
// the administrator's kubeconfig and, unless storage is off, waits until
// the StorageClass exists, so that a claim made next gets it.
func (c *Cluster) startCloud(ctx context.Context, s *State, cfg *rest.Config) error {
	if err := c.startWavekit(s, s.Cloud.Executable, cloudLog, c.cloudArgs(s)); err != nil || s.Cloud.NoStorage {
		return err
	}
	return c.waitStorageClass(ctx, s, cfg)
}

// cloudArgs are the arguments of `wavekit cluster cloud`.
func (c *Cluster) cloudArgs(s *State) []string {
	args := []string{"cluster", "cloud", "--kubeconfig", c.path(adminKubeconfigFile)}
	if s.Cloud.NoStorage {
		args = append(args, "--storage=false")
	}
	if s.Cloud.NoLoadBalancers {
		args = append(args, "--load-balancers=false")
	}
	return args
}

// waitStorageClass waits until the default StorageClass exists, or a
// process of the cluster has exited.
func (c *Cluster) waitStorageClass(ctx context.Context, s *State, cfg *rest.Config) error {
	cl, err := client.New(cfg, client.Options{})
	if err != nil {
		return fmt.Errorf("creating a client of cluster %s: %w", c.Name, err)
	}
	return c.waitUntil(ctx, s, "StorageClass "+localcloud.StorageClassName+" did not appear", c.CloudLog(),
		func(ctx context.Context) error {
			return cl.Get(ctx, client.ObjectKey{Name: localcloud.StorageClassName}, &storagev1.StorageClass{})
		})
}

// Summary says which parts of the cloud run.
func (c *Cloud) Summary() string {
	switch {
	case c.NoStorage:
		return "load balancer addresses from " + localcloud.AddressRange
	case c.NoLoadBalancers:
		return "the default StorageClass " + localcloud.StorageClassName + " and its provisioner"
	}
	return "the default StorageClass " + localcloud.StorageClassName + " and its provisioner, load balancer addresses from " + localcloud.AddressRange
}
