package localcluster

import (
	"context"
	"errors"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"slices"

	"github.com/wavekit-dev/wavekit/pkg/testenv/egress"
)

// The ranges of a cluster created before they were recorded.
const (
	legacyServiceRange = "10.96.0.0/16"
	legacyPodRange     = "10.244.0.0/16"
)

// egressGateLog names the log of the egress gate's process, and the
// process in the record.
const egressGateLog = "egress-gate"

// maxSocketPath is the longest path of a Unix socket that every system
// takes (macOS: 104 bytes with the closing NUL).
const maxSocketPath = 103

// EgressGate says how the cluster runs its egress gate (package egress),
// through which kube-apiserver connects to the cluster's own addresses:
// it refuses all but loopback, with a reason.
type EgressGate struct {
	// Executable is the wavekit binary that runs it (wavekit cluster
	// egress-gate).
	Executable string `json:"executable"`
}

// ServiceRange is the range of the cluster's Services' addresses (the one
// of a cluster created before it was recorded, 10.96.0.0/16, when the
// record has none).
func (s *State) ServiceRange() string {
	if s.ServiceCIDR == "" {
		return legacyServiceRange
	}
	return s.ServiceCIDR
}

// PodRange is the range kwok gives the cluster's pods addresses from
// (10.244.0.0/16 when the record has none).
func (s *State) PodRange() string {
	if s.PodCIDR == "" {
		return legacyPodRange
	}
	return s.PodCIDR
}

// EgressGateLog is the file the egress gate logs its refusals into.
func (c *Cluster) EgressGateLog() string { return c.path("logs", egressGateLog+".log") }

// egressSocket is the gate's socket as kube-apiserver and the gate name it:
// in the cluster's directory, or, where that path is too long for a
// socket, relative to the directory of the logs, where both processes run.
func (c *Cluster) egressSocket() string {
	if path := c.path(egress.SocketFile); len(path) <= maxSocketPath {
		return path
	}
	return filepath.Join("..", egress.SocketFile)
}

// startEgressGate writes kube-apiserver's egress selector configuration
// and, when the cluster has a gate, runs `wavekit cluster egress-gate` and
// waits until it listens. Without a gate kube-apiserver reaches none of the
// cluster's addresses either: its connections to the socket fail.
func (c *Cluster) startEgressGate(ctx context.Context, s *State) error {
	if err := egress.WriteConfig(c.path(egress.ConfigFile), c.egressSocket()); err != nil {
		return err
	}
	socket := c.path(egress.SocketFile)
	if err := os.Remove(socket); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if s.EgressGate == nil {
		return nil
	}
	args := []string{"cluster", "egress-gate", "--kubeconfig", c.path(adminKubeconfigFile), "--socket", c.egressSocket()}
	if err := c.startWavekit(s, s.EgressGate.Executable, egressGateLog, args); err != nil {
		return err
	}
	return c.waitUntil(ctx, s, "the egress gate did not listen on "+socket, c.EgressGateLog(), func(context.Context) error {
		_, err := os.Stat(socket)
		return err
	})
}

// firstAddress is the address of a range that kube-apiserver gives the
// Service kubernetes.
func firstAddress(cidr string) (string, error) {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil {
		return "", err
	}
	return prefix.Masked().Addr().Next().String(), nil
}

// stopOrder is the order to stop processes in: the last started first,
// except that the egress gate, started before kube-apiserver, stops just
// before it, since kube-apiserver would wait for the gate's watches.
func stopOrder(processes []ProcessRecord) []ProcessRecord {
	order := slices.Clone(processes)
	slices.Reverse(order)
	gate := slices.IndexFunc(order, func(p ProcessRecord) bool { return p.Name == egressGateLog })
	apiServer := slices.IndexFunc(order, func(p ProcessRecord) bool { return p.Name == "kube-apiserver" })
	if gate > apiServer && apiServer >= 0 {
		g := order[gate]
		order = slices.Insert(slices.Delete(order, gate, gate+1), apiServer, g)
	}
	return order
}
