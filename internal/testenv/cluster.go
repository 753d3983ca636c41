package testenv

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// FailAnnotation, set to "true" on a pod, makes the test cluster's kwok move
// the pod to Failed (exit code 1) instead of Running.
const FailAnnotation = "wavekit.dev/test-fail"

// NotReadyAnnotation, set to "true" on a pod, makes the test cluster's kwok
// move the pod to Running with its Ready condition False, where it stays: a
// Deployment of such pods never becomes available, and a Job of them never
// finishes.
const NotReadyAnnotation = "wavekit.dev/test-not-ready"

// FakeNodes are the names of the Nodes that kwok simulates in a cluster that
// Start started with Options.Controllers.
var FakeNodes = []string{"kwok-node-0", "kwok-node-1", "kwok-node-2"}

const (
	// fakeNodeAnnotation marks the Nodes that kwok manages.
	fakeNodeAnnotation = "kwok.x-k8s.io/node"
	// clusterStartTimeout bounds the start of the controllers and nodes.
	clusterStartTimeout = 2 * time.Minute
	// processStopGrace is how long a component may take to exit on SIGTERM.
	processStopGrace = 15 * time.Second
)

// stages is kwok's configuration: how Nodes and Pods move through their
// lifecycle.
//
//go:embed stages.yaml
var stages []byte

// cluster is what Options.Controllers adds to the API server: the
// controllers, the scheduler and kwok as child processes, and their files.
type cluster struct {
	dir       string // kubeconfig, CA, stages and the logs of the processes
	processes []*childProcess
}

// clusterBinaries are what a cluster runs besides kube-apiserver and etcd.
var clusterBinaries = []string{"kube-controller-manager", "kube-scheduler", "kwok"}

// checkClusterBinaries returns an error if assets lacks a component of the
// cluster.
func checkClusterBinaries(assets string) error {
	for _, name := range clusterBinaries {
		if !isExecutable(filepath.Join(assets, name)) {
			return fmt.Errorf("no %s in %s: hack/control-plane.sh builds it (make control-plane)", name, assets)
		}
	}
	return nil
}

// startCluster starts kube-controller-manager, kube-scheduler and kwok
// from assets against the API server of environment, creates the fake Nodes
// and waits until they are Ready and schedulable.
func startCluster(assets string, environment *envtest.Environment, cfg *rest.Config, c client.Client) (*cluster, error) {
	dir, err := os.MkdirTemp("", "wavekit-cluster-")
	if err != nil {
		return nil, fmt.Errorf("creating the test cluster's directory: %w", err)
	}
	cl := &cluster{dir: dir}
	if err := cl.start(assets, environment.ControlPlane.APIServer, cfg); err != nil {
		return nil, errors.Join(fmt.Errorf("starting the test cluster (logs in %s): %w", dir, err), cl.stopProcesses())
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterStartTimeout)
	defer cancel()
	if err := cl.createNodes(ctx, c); err != nil {
		return nil, errors.Join(fmt.Errorf("starting the test cluster (logs in %s): %w", dir, err), cl.stopProcesses())
	}
	return cl, nil
}

// start writes the files the components read and starts them.
func (cl *cluster) start(assets string, apiserver *envtest.APIServer, cfg *rest.Config) error {
	kubeconfig := filepath.Join(cl.dir, "admin.kubeconfig")
	if err := WriteKubeconfig(cfg, kubeconfig); err != nil {
		return fmt.Errorf("writing %s: %w", kubeconfig, err)
	}
	caFile := filepath.Join(cl.dir, "ca.crt")
	if err := os.WriteFile(caFile, cfg.CAData, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", caFile, err)
	}
	stagesFile := filepath.Join(cl.dir, "kwok-stages.yaml")
	if err := os.WriteFile(stagesFile, stages, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", stagesFile, err)
	}
	signingKey, err := serviceAccountSigningKey(apiserver)
	if err != nil {
		return err
	}
	components := []struct {
		name string
		args []string
		env  []string
	}{
		{name: "kube-controller-manager", args: []string{
			"--kubeconfig=" + kubeconfig,
			"--controllers=*",
			"--leader-elect=false",
			"--secure-port=0",
			"--service-account-private-key-file=" + signingKey,
			"--root-ca-file=" + caFile,
			"--use-service-account-credentials=false",
			// Its default client limit (20 requests a second) paces a
			// thousand Deployments at seven ReplicaSets a second: a test
			// or benchmark would measure that limit, not wavekit.
			"--kube-api-qps=1000",
			"--kube-api-burst=2000",
		}},
		{name: "kube-scheduler", args: []string{
			"--kubeconfig=" + kubeconfig,
			"--leader-elect=false",
			"--secure-port=0",
		}},
		{name: "kwok", args: []string{
			"--kubeconfig=" + kubeconfig,
			"--config=" + stagesFile,
			"--manage-nodes-with-annotation-selector=" + fakeNodeAnnotation + "=fake",
			"--node-lease-duration-seconds=40",
			"--cidr=10.244.0.0/16", // pod IPs; kwok's default /24 has 254
		}, env: []string{"HOME=" + cl.dir}}, // no ~/.kwok/kwok.yaml of the user
	}
	for _, component := range components {
		p, err := startProcess(component.name, assets, cl.dir, component.args, component.env)
		if err != nil {
			return err
		}
		cl.processes = append(cl.processes, p)
	}
	return nil
}

// serviceAccountSigningKey returns the key that kube-apiserver verifies
// service account tokens with, so that the tokens kube-controller-manager
// issues are valid.
func serviceAccountSigningKey(apiserver *envtest.APIServer) (string, error) {
	key := filepath.Join(apiserver.CertDir, "sa-signer.key") // envtest's default
	if set := apiserver.Configure().Get("service-account-signing-key-file").Get(nil); len(set) > 0 {
		key = set[0]
	}
	if _, err := os.Stat(key); err != nil {
		return "", fmt.Errorf("finding kube-apiserver's service account signing key: %w", err)
	}
	return key, nil
}

// createNodes creates the fake Nodes and waits until kwok has made them
// Ready and the node lifecycle controller has removed their taints.
func (cl *cluster) createNodes(ctx context.Context, c client.Client) error {
	for _, name := range FakeNodes {
		if err := c.Create(ctx, fakeNode(name)); err != nil {
			return fmt.Errorf("creating fake Node %s: %w", name, err)
		}
	}
	var exited, last error
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if exited = cl.exited(); exited != nil {
			return false, exited
		}
		last = nodesReady(ctx, c)
		return last == nil, nil
	})
	switch {
	case exited != nil:
		return exited
	case err != nil:
		return fmt.Errorf("waiting for the fake Nodes (%w): %w%s", err, last, cl.tails())
	}
	return nil
}

// nodesReady returns nil when every fake Node is Ready and has no taints,
// else what is missing.
func nodesReady(ctx context.Context, c client.Client) error {
	for _, name := range FakeNodes {
		var node corev1.Node
		if err := c.Get(ctx, client.ObjectKey{Name: name}, &node); err != nil {
			return fmt.Errorf("reading Node %s: %w", name, err)
		}
		if !isReady(node.Status.Conditions) {
			return fmt.Errorf("node %s is not Ready", name)
		}
		if len(node.Spec.Taints) > 0 {
			return fmt.Errorf("node %s still has the taint %s", name, node.Spec.Taints[0].Key)
		}
	}
	return nil
}

func isReady(conditions []corev1.NodeCondition) bool {
	for _, c := range conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// fakeNode is a Node for kwok to manage, with room for many pods.
func fakeNode(name string) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{fakeNodeAnnotation: "fake"},
			Labels: map[string]string{
				"kubernetes.io/hostname": name,
				"kubernetes.io/os":       "linux",
				"type":                   "kwok",
			},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

// exited returns an error for the first component that has exited.
func (cl *cluster) exited() error {
	for _, p := range cl.processes {
		if err := p.exited(); err != nil {
			return err
		}
	}
	return nil
}

// tails returns the end of every component's log.
func (cl *cluster) tails() string {
	var b strings.Builder
	for _, p := range cl.processes {
		fmt.Fprintf(&b, "\nthe end of %s:\n%s", p.logPath, p.tail())
	}
	return b.String()
}

// stop stops the components and removes the directory with their logs.
func (cl *cluster) stop() error {
	if err := cl.stopProcesses(); err != nil {
		return fmt.Errorf("stopping the test cluster (logs in %s): %w", cl.dir, err)
	}
	if err := os.RemoveAll(cl.dir); err != nil {
		return fmt.Errorf("removing %s: %w", cl.dir, err)
	}
	return nil
}

// stopProcesses stops the components that run, last started first.
func (cl *cluster) stopProcesses() error {
	var errs []error
	for i := len(cl.processes) - 1; i >= 0; i-- {
		errs = append(errs, cl.processes[i].stop(processStopGrace))
	}
	cl.processes = nil
	return errors.Join(errs...)
}
