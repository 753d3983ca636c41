package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// binaries are the programs a run starts.
type binaries struct {
	repoRoot       string // the wavekit repository
	controlPlane   string // directory of kube-apiserver, etcd, ... (hack/control-plane.sh)
	wavekit        string // the wavekit CLI
	operator       string // cmd/component-operator
	helm           string // the helm CLI the project pins (go.mod's tool line)
	helmController string // directory of helm-controller and its CRDs
}

// buildAll builds the wavekit CLI, the operator and helm from the main
// module, and finds or builds the control plane and helm-controller in the
// user's cache, printing progress.
func buildAll(ctx context.Context, opts options) (binaries, error) {
	bin := filepath.Join(opts.workDir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return binaries{}, err
	}
	b := binaries{
		repoRoot: opts.repoRoot,
		wavekit:  filepath.Join(bin, "wavekit"),
		operator: filepath.Join(bin, "component-operator"),
		helm:     filepath.Join(bin, "helm"),
	}
	var err error
	if b.controlPlane, err = scriptOutput(ctx, opts.repoRoot, "bash", "hack/control-plane.sh"); err != nil {
		return b, fmt.Errorf("building the control plane: %w", err)
	}
	if slices.Contains(opts.tools, helmControllerTool{}.name()) {
		script := filepath.Join(opts.repoRoot, "test", "bench", "peers", "build-helm-controller.sh")
		if b.helmController, err = scriptOutput(ctx, opts.repoRoot, "bash", script); err != nil {
			return b, fmt.Errorf("building helm-controller: %w", err)
		}
	}
	for out, pkg := range map[string]string{
		b.wavekit: "./cmd/wavekit", b.operator: "./cmd/component-operator", b.helm: "helm.sh/helm/v3/cmd/helm",
	} {
		start := time.Now()
		// As the release images and helm-controller's script build them.
		if _, err := scriptOutput(ctx, opts.repoRoot, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg); err != nil {
			return b, fmt.Errorf("building %s: %w", pkg, err)
		}
		progress("built %s in %s", pkg, time.Since(start).Round(time.Second))
	}
	return b, nil
}

// scriptOutput runs name with args in dir, passing its standard error
// through (the build scripts print progress there), and returns its
// standard output, trimmed.
func scriptOutput(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// progress prints a line of progress to standard error.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench-peers %s: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// trimLine returns the first line of out, without surrounding space.
func trimLine(out []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}
