package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// auditPolicy logs every request of a tool's identity at Metadata level
// (verb, resource, user, user agent; no bodies), and nothing else. A watch
// is logged when it starts (ResponseStarted), any other request when it
// completes.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
    users: [%s]
  - level: None
`

// cluster is a local cluster of `wavekit cluster create`, whose API server
// writes an audit log of the tools' requests.
type cluster struct {
	name       string
	dir        string // this cluster's files in the run's work directory
	wavekit    string
	kubeconfig string // an administrator's kubeconfig
	auditLog   string
	apiPIDFile string // the API server's process id, written by its wrapper

	config  *rest.Config
	kube    kubernetes.Interface
	dynamic dynamic.Interface
}

// createCluster makes a directory of the control plane's binaries whose
// kube-apiserver is a wrapper that adds the audit flags, and runs
// `wavekit cluster create` with it.
func createCluster(ctx context.Context, opts options, bins binaries, name string, auditUsers []string) (*cluster, error) {
	c := &cluster{name: name, dir: filepath.Join(opts.workDir, name), wavekit: bins.wavekit}
	c.kubeconfig = filepath.Join(c.dir, "kubeconfig")
	c.auditLog = filepath.Join(c.dir, "audit.log")
	c.apiPIDFile = filepath.Join(c.dir, "kube-apiserver.pid")
	binDir := filepath.Join(c.dir, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return nil, err
	}
	if err := c.writeBinaries(bins.controlPlane, binDir, auditUsers); err != nil {
		return nil, err
	}
	// A cluster of an earlier, interrupted run goes first.
	_ = exec.CommandContext(ctx, c.wavekit, "cluster", "delete", "--name", name).Run()
	progress("%s: creating the cluster (wavekit cluster create)", name)
	create := exec.CommandContext(ctx, c.wavekit, "cluster", "create", "--name", name, "--switch-context=false",
		"--kubeconfig", c.kubeconfig, "--binaries", binDir, "--nodes", strconv.Itoa(nodesFor(opts.releases)))
	create.Stdout, create.Stderr = os.Stderr, os.Stderr
	if err := create.Run(); err != nil {
		return nil, fmt.Errorf("wavekit cluster create --name %s: %w", name, err)
	}
	return c, c.connect()
}

// podsPerNode is what a kwok Node takes (its status says pods: 110, the
// kubelet's default).
const podsPerNode = 110

// nodesFor is how many Nodes R releases need: each runs a Deployment of 2
// replicas, and during an upgrade a third pod while one is replaced; and 3
// at least, as a cluster has by default. A cluster with too few Nodes leaves
// pods Pending and its releases never Ready (R = 1000 on 3 Nodes).
func nodesFor(releases int) int {
	return max(3, (3*releases+podsPerNode-1)/podsPerNode)
}

// writeBinaries links the control plane's binaries into binDir and writes
// kube-apiserver as a script that records its process id and execs the real
// one with the audit flags.
func (c *cluster) writeBinaries(controlPlane, binDir string, auditUsers []string) error {
	for _, b := range []string{"etcd", "kube-controller-manager", "kube-scheduler", "kwok"} {
		link := filepath.Join(binDir, b)
		_ = os.Remove(link)
		if err := os.Symlink(filepath.Join(controlPlane, b), link); err != nil {
			return err
		}
	}
	quoted := make([]string, len(auditUsers))
	for i, u := range auditUsers {
		quoted[i] = strconv.Quote(u)
	}
	policy := filepath.Join(c.dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, fmt.Appendf(nil, auditPolicy, strings.Join(quoted, ", ")), 0o644); err != nil {
		return err
	}
	script := fmt.Sprintf("#!/bin/sh\necho $$ > %q\nexec %q \"$@\" --audit-policy-file=%q --audit-log-path=%q --audit-log-maxsize=0\n",
		c.apiPIDFile, filepath.Join(controlPlane, "kube-apiserver"), policy, c.auditLog)
	return os.WriteFile(filepath.Join(binDir, "kube-apiserver"), []byte(script), 0o755)
}

// connect makes the administrator's clients, without client-side rate limit.
func (c *cluster) connect() error {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return fmt.Errorf("loading %s: %w", c.kubeconfig, err)
	}
	cfg.QPS, cfg.Burst, cfg.UserAgent = -1, 0, "bench-peers"
	c.config = cfg
	if c.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	c.dynamic, err = dynamic.NewForConfig(cfg)
	return err
}

// apiServerPID is the process id of the cluster's kube-apiserver.
func (c *cluster) apiServerPID() int {
	data, err := os.ReadFile(c.apiPIDFile)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

// delete removes the cluster with `wavekit cluster delete`.
func (c *cluster) delete() {
	out, err := exec.Command(c.wavekit, "cluster", "delete", "--name", c.name).CombinedOutput()
	if err != nil {
		progress("%s: wavekit cluster delete: %v: %s", c.name, err, out)
	}
}
