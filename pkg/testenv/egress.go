package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/wavekit-dev/wavekit/pkg/testenv/clusterrun"
	"github.com/wavekit-dev/wavekit/pkg/testenv/egress"
)

// ServiceRange is the range of Services' cluster IPs, unless the
// APIServer's configuration sets --service-cluster-ip-range; PodRange is the
// range of pod IPs (see clusterrun.ServiceRange).
const (
	ServiceRange = clusterrun.ServiceRange
	PodRange     = clusterrun.PodRange
)

// EgressSocket is the Unix socket of the egress gate that kube-apiserver
// connects through to the cluster's own addresses (webhooks, APIServices,
// kubelets), while the environment runs; "" before Start and after Stop.
func (e *Environment) EgressSocket() string {
	if e.gate == nil {
		return ""
	}
	return e.gate.Socket
}

// egressGateLog names the egress gate's log in its directory.
const egressGateLog = "egress-gate.log"

// runningGate is the egress gate of the environment, in this process, with
// its directory and log.
type runningGate struct {
	*egress.Gate
	dir string
	log *os.File
}

// configureAPIServer points kube-apiserver at the egress gate, which it
// starts in a directory of its own, and sets the Services' range unless
// the configuration sets one.
func (e *Environment) configureAPIServer() error {
	args := e.ControlPlane.GetAPIServer().Configure()
	if len(args.Get("service-cluster-ip-range").Get(nil)) == 0 {
		args.Set("service-cluster-ip-range", ServiceRange)
	}
	// Bootstrap tokens (Secrets of kube-system), as a kubeadm cluster
	// has them: a client registers with one and gets a certificate.
	args.Set("enable-bootstrap-token-auth", "true")
	if api := e.ControlPlane.GetAPIServer(); api.SecureServing.Authn == nil {
		e.clientCA = &clientCA{}
		api.SecureServing.Authn = e.clientCA
	}
	gate, err := startGate()
	if err != nil {
		return err
	}
	e.gate = gate
	args.Set(egress.Flag, filepath.Join(gate.dir, egress.ConfigFile))
	return nil
}

// startGate starts an egress gate that logs its refusals, and writes
// kube-apiserver's configuration for it, in a new temporary directory (its
// path is short, as a socket's must be).
func startGate() (*runningGate, error) {
	dir, err := os.MkdirTemp("", "wavekit-egress-")
	if err != nil {
		return nil, fmt.Errorf("creating the egress gate's directory: %w", err)
	}
	r := &runningGate{dir: dir}
	if r.log, err = os.Create(filepath.Join(dir, egressGateLog)); err != nil {
		return nil, errors.Join(fmt.Errorf("creating the egress gate's log: %w", err), os.RemoveAll(dir))
	}
	if r.Gate, err = egress.Listen(filepath.Join(dir, egress.SocketFile), zap.New(zap.WriteTo(r.log))); err != nil {
		return nil, errors.Join(err, r.stop())
	}
	if err := egress.WriteConfig(filepath.Join(dir, egress.ConfigFile), r.Socket); err != nil {
		return nil, errors.Join(err, r.stop())
	}
	return r, nil
}

// stop closes the gate and removes its directory.
func (r *runningGate) stop() error {
	var errs []error
	if r.Gate != nil {
		errs = append(errs, r.Close())
	}
	errs = append(errs, r.log.Close(), os.RemoveAll(r.dir))
	return errors.Join(errs...)
}
