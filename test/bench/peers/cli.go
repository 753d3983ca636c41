package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	cliNamespace = "bench-cli"
	// cliProcesses is how many CLI processes run at once, as many as
	// helm-controller's default --concurrent.
	cliProcesses = 4
)

// cliRBAC lets a CLI's ServiceAccount do anything, as a CI job that runs
// helm or wavekit with an administrator's kubeconfig can.
const cliRBAC = `apiVersion: v1
kind: ServiceAccount
metadata: {name: %[1]s, namespace: %[2]s}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: %[1]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: %[1]s, namespace: %[2]s}]
`

// cliTool is a command-line tool run once per release and scenario (the
// baseline a team without an operator has: helm install in a loop), as its
// own ServiceAccount. It has no resource of its own: a release is Ready
// when its Deployment is rolled out.
type cliTool struct {
	tool    string
	account string
	// versionArgs make the binary print its version.
	versionArgs []string
	// args are the command's arguments for a scenario ("install",
	// "upgrade", "delete") of release name with the value message.
	args func(scenario, name, message string, repo *chartRepository) []string
	// binary is the tool's executable among the bench's binaries.
	binary func(bins binaries) string

	runs *cliRuns // set by start
}

// cliRuns runs a tool's commands and adds up the CPU they used and the
// largest resident set one of them reached.
type cliRuns struct {
	binary, kubeconfig string
	mu                 sync.Mutex
	cpu, peakRSS       float64
}

var helmCLI = &cliTool{
	tool: "helm", account: "helm", versionArgs: []string{"version", "--short"},
	binary: func(bins binaries) string { return bins.helm },
	args: func(scenario, name, message string, repo *chartRepository) []string {
		switch scenario {
		case "install", "upgrade":
			return []string{scenario, name, repo.tarballURL(), "--namespace", benchNamespace, "--set", "message=" + message}
		}
		return []string{"uninstall", name, "--namespace", benchNamespace}
	},
}

var wavekitCLI = &cliTool{
	tool: "wavekit-cli", account: "wavekit-cli", versionArgs: []string{"--version"},
	binary: func(bins binaries) string { return bins.wavekit },
	args: func(scenario, name, message string, repo *chartRepository) []string {
		if scenario == "delete" {
			return []string{"delete", name, "--namespace", benchNamespace}
		}
		return []string{"apply", name, chartName, "--repo", repo.url, "--version", chartVersion, "--namespace", benchNamespace, "--set", "message=" + message}
	},
}

func (t *cliTool) name() string { return t.tool }

func (t *cliTool) user() string { return serviceAccountUser(cliNamespace, t.account) }

func (t *cliTool) version(bins binaries) string {
	out, err := exec.Command(t.binary(bins), t.versionArgs...).CombinedOutput()
	if err != nil {
		return "unknown"
	}
	return trimLine(out)
}

// resource is none: the tracker follows Deployments only.
func (t *cliTool) resource() schema.GroupVersionResource { return schema.GroupVersionResource{} }

func (t *cliTool) release(string, string, *chartRepository) *unstructured.Unstructured { return nil }

// start creates the tool's ServiceAccount and a kubeconfig of its token;
// nothing runs until a scenario runs the commands.
func (t *cliTool) start(ctx context.Context, c *cluster, bins binaries, _ *chartRepository) (*controller, error) {
	if err := c.ensureNamespace(ctx, cliNamespace); err != nil {
		return nil, err
	}
	if err := c.applyYAML(ctx, t.tool+"'s RBAC", fmt.Sprintf(cliRBAC, t.account, cliNamespace), nil); err != nil {
		return nil, err
	}
	kubeconfig, err := c.tokenKubeconfig(ctx, cliNamespace, t.account)
	if err != nil {
		return nil, err
	}
	t.runs = &cliRuns{binary: t.binary(bins), kubeconfig: kubeconfig}
	return nil, nil
}

// act runs the tool's command for a scenario of release name.
func (t *cliTool) act(ctx context.Context, scenario, name, message string, repo *chartRepository) error {
	return t.runs.run(ctx, t.args(scenario, name, message, repo))
}

// run runs the binary with args and records the CPU and memory it used.
func (r *cliRuns) run(ctx context.Context, args []string) error {
	cmd := exec.CommandContext(ctx, r.binary, append(args, "--kubeconfig", r.kubeconfig)...)
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState != nil {
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		var rss float64
		if u, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = float64(u.Maxrss) / 1024 // KiB on Linux
		}
		r.mu.Lock()
		r.cpu += cpu.Seconds()
		r.peakRSS = max(r.peakRSS, rss)
		r.mu.Unlock()
	}
	if err != nil {
		return fmt.Errorf("%s %v: %w: %s", filepath.Base(r.binary), args, err, out)
	}
	return nil
}

// usage returns the CPU seconds the commands used so far and the largest
// peak RSS of one of them (MiB).
func (r *cliRuns) usage() (float64, float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cpu, r.peakRSS
}
