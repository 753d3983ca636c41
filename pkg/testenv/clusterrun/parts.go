package clusterrun

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FailAnnotation, set to "true" on a pod, makes kwok move the pod to Failed
// (exit code 1) instead of Running.
const FailAnnotation = "wavekit.dev/test-fail"

// NotReadyAnnotation, set to "true" on a pod, makes kwok move the pod to
// Running with its Ready condition False, where it stays: a Deployment of
// such pods never becomes available, and a Job of them never finishes.
const NotReadyAnnotation = "wavekit.dev/test-not-ready"

// stages is kwok's configuration: how Nodes and Pods move through their
// lifecycle.
//
//go:embed stages.yaml
var stages []byte

// ServiceRange and PodRange are the addresses of a new local cluster's
// Services and pods: 198.18.0.0/15, which RFC 2544 sets aside for
// benchmarking, so that no company network uses them and a connection to
// one that ever left the machine (a program on the host dialing a cluster
// IP) reaches nothing. kube-apiserver connects to none of them: its egress
// gate (package egress) refuses them.
const (
	ServiceRange = "198.18.0.0/16"
	PodRange     = "198.19.0.0/16"
)

// Files are what the parts read: a kubeconfig of a cluster administrator, the
// cluster's CA, the key kube-apiserver verifies service account tokens with,
// and a directory for kwok's stages and home; and the range kwok gives pod
// IPs from (PodRange when empty). ClientCAFile and ClientCAKey, when set,
// are the CA kube-apiserver trusts client certificates of (its
// --client-ca-file) and its key: kube-controller-manager then signs the
// approved CertificateSigningRequests of the signer
// kubernetes.io/kube-apiserver-client with it.
type Files struct {
	Kubeconfig   string
	CAFile       string
	SigningKey   string
	Dir          string
	PodRange     string
	ClientCAFile string
	ClientCAKey  string
}

// Part is one process of the cluster: a binary and its arguments and extra
// environment.
type Part struct {
	Name string
	Args []string
	Env  []string
}

// Parts writes kwok's stages into f.Dir and returns the processes to run,
// in the order to start them.
func Parts(f Files) ([]Part, error) {
	podRange := f.PodRange
	if podRange == "" {
		podRange = PodRange
	}
	stagesFile := filepath.Join(f.Dir, "kwok-stages.yaml")
	if err := os.WriteFile(stagesFile, stages, 0o600); err != nil {
		return nil, fmt.Errorf("writing %s: %w", stagesFile, err)
	}
	return []Part{
		{Name: "kube-controller-manager", Args: append([]string{
			"--kubeconfig=" + f.Kubeconfig,
			"--controllers=*",
			"--leader-elect=false",
			"--secure-port=0",
			"--service-account-private-key-file=" + f.SigningKey,
			"--root-ca-file=" + f.CAFile,
			"--use-service-account-credentials=false",
			// Its default client limit (20 requests a second) paces a
			// thousand Deployments at seven ReplicaSets a second: a test
			// or benchmark would measure that limit, not wavekit.
			"--kube-api-qps=1000",
			"--kube-api-burst=2000",
		}, SignerArgs(f)...)},
		{Name: "kube-scheduler", Args: []string{
			"--kubeconfig=" + f.Kubeconfig,
			"--leader-elect=false",
			"--secure-port=0",
		}},
		{Name: "kwok", Args: []string{
			"--kubeconfig=" + f.Kubeconfig,
			"--config=" + stagesFile,
			"--manage-nodes-with-annotation-selector=" + FakeNodeAnnotation + "=fake",
			"--node-lease-duration-seconds=40",
			"--cidr=" + podRange, // pod IPs; kwok's default /24 has 254
		}, Env: []string{"HOME=" + f.Dir}}, // no ~/.kwok/kwok.yaml of the user
	}, nil
}

// SignerArgs are kube-controller-manager's flags that make it sign the
// approved CertificateSigningRequests of kubernetes.io/kube-apiserver-client
// with the client CA of f (none when f has none). Only that signer: the
// others (kubelet's) stay without a CA, as they were.
func SignerArgs(f Files) []string {
	if f.ClientCAFile == "" || f.ClientCAKey == "" {
		return nil
	}
	return []string{
		"--cluster-signing-kube-apiserver-client-cert-file=" + f.ClientCAFile,
		"--cluster-signing-kube-apiserver-client-key-file=" + f.ClientCAKey,
	}
}

// SignerPart is kube-controller-manager running only the controller that
// signs CertificateSigningRequests, with the client CA of f: for a cluster
// of kube-apiserver and etcd alone that should issue client certificates.
func SignerPart(f Files) Part {
	return Part{Name: "kube-controller-manager", Args: append([]string{
		"--kubeconfig=" + f.Kubeconfig,
		"--controllers=csrsigning",
		"--leader-elect=false",
		"--secure-port=0",
	}, SignerArgs(f)...)}
}

// Group is the parts of a cluster, started as processes.
type Group struct {
	Processes []*Process
}

// StartParts starts parts from the binaries of bin, logging into logDir. On
// an error, the parts it started are stopped again.
func StartParts(bin, logDir string, parts []Part, opts StartOptions) (*Group, error) {
	g := &Group{}
	for _, part := range parts {
		p, err := Start(part.Name, bin, logDir, part.Args, part.Env, opts)
		if err != nil {
			return nil, errors.Join(err, g.Stop(StopGrace))
		}
		g.Processes = append(g.Processes, p)
	}
	return g, nil
}

// StopGrace is how long a part may take to exit on SIGTERM.
const StopGrace = 15 * time.Second

// Exited returns an error for the first part that has exited.
func (g *Group) Exited() error {
	for _, p := range g.Processes {
		if err := p.Exited(); err != nil {
			return err
		}
	}
	return nil
}

// Tails returns the end of every part's log.
func (g *Group) Tails() string {
	var b strings.Builder
	for _, p := range g.Processes {
		fmt.Fprintf(&b, "\nthe end of %s:\n%s", p.LogPath, Tail(p.LogPath))
	}
	return b.String()
}

// Stop stops the parts that run, last started first.
func (g *Group) Stop(grace time.Duration) error {
	var errs []error
	for i := len(g.Processes) - 1; i >= 0; i-- {
		errs = append(errs, g.Processes[i].Stop(grace))
	}
	g.Processes = nil
	return errors.Join(errs...)
}
