package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	wavekitNamespace = "wavekit-system"
	wavekitAccount   = "wavekit-component-operator"
	// wavekitConcurrent is the chart's default --concurrent.
	wavekitConcurrent = "8"
)

// wavekitRBACValues are the operator chart's values for the bench: the
// rights on what the bench chart deploys, as a user grants them
// (rbac.extraRules), and a source because the chart asks for one.
const wavekitRBACValues = `sources: [{name: none, path: /opt/sources/none}]
rbac:
  extraRules:
    - apiGroups: [""]
      resources: [configmaps, services, serviceaccounts]
      verbs: [get, list, watch, create, update, patch, delete]
    - apiGroups: [apps]
      resources: [deployments]
      verbs: [get, list, watch, create, update, patch, delete]
    - apiGroups: [autoscaling]
      resources: [horizontalpodautoscalers]
      verbs: [get, list, watch, create, update, patch, delete]
    - apiGroups: [policy]
      resources: [poddisruptionbudgets]
      verbs: [get, list, watch, create, update, patch, delete]
`

// wavekitTool is wavekit's reference operator, cmd/component-operator,
// with its chart's CRD and RBAC, Components taking spec.chart from the
// bench's Helm repository.
type wavekitTool struct{}

func (wavekitTool) name() string { return "wavekit" }

func (wavekitTool) user() string { return serviceAccountUser(wavekitNamespace, wavekitAccount) }

func (wavekitTool) version(bins binaries) string {
	out, err := exec.Command(bins.operator, "--version").CombinedOutput()
	if err != nil {
		return "unknown"
	}
	return trimLine(out)
}

func (wavekitTool) resource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "wavekit.dev", Version: "v1alpha1", Resource: "components"}
}

func (wavekitTool) release(name, message string, repo *chartRepository) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "wavekit.dev/v1alpha1", "kind": "Component",
		"metadata": map[string]any{"name": name, "namespace": benchNamespace},
		"spec": map[string]any{
			"chart":     map[string]any{"repository": repo.url, "name": chartName, "version": chartVersion},
			"values":    map[string]any{"message": message},
			"intervals": map[string]any{"requeue": releaseInterval},
		},
	}}
}

// start installs the CRD and the chart's ServiceAccount and RBAC, and runs
// the operator binary as that ServiceAccount with the chart's flags.
func (t wavekitTool) start(ctx context.Context, c *cluster, bins binaries, _ *chartRepository) (*controller, error) {
	crds, err := filepath.Glob(filepath.Join(bins.repoRoot, "config", "crd", "bases", "*.yaml"))
	if err != nil || len(crds) == 0 {
		return nil, fmt.Errorf("no CRDs in %s/config/crd/bases", bins.repoRoot)
	}
	if err := c.ensureNamespace(ctx, wavekitNamespace); err != nil {
		return nil, err
	}
	if err := c.applyYAMLFiles(ctx, crds...); err != nil {
		return nil, err
	}
	if err := c.applyChartRBAC(ctx, bins); err != nil {
		return nil, err
	}
	if err := c.waitServed(ctx, t.resource()); err != nil {
		return nil, err
	}
	kubeconfig, err := c.tokenKubeconfig(ctx, wavekitNamespace, wavekitAccount)
	if err != nil {
		return nil, err
	}
	pprof, err := freeAddress()
	if err != nil {
		return nil, err
	}
	progress("wavekit: the operator serves pprof at http://%s/debug/pprof/", pprof)
	return startController("component-operator", bins.operator, filepath.Join(c.dir, "component-operator.log"), []string{
		"--kubeconfig", kubeconfig, "--operator-name=wavekit.dev", "--concurrent=" + wavekitConcurrent,
		"--metrics-bind-address=0", "--health-probe-bind-address=0", "--pprof-bind-address=" + pprof,
		"--source-cache-dir=" + filepath.Join(c.dir, "sources"),
	}, nil)
}

// applyChartRBAC renders the operator's chart (config/chart) with the helm
// CLI and applies its ServiceAccount and RBAC objects, nothing else: the
// bench runs the binary itself.
func (c *cluster) applyChartRBAC(ctx context.Context, bins binaries) error {
	values := filepath.Join(c.dir, "operator-values.yaml")
	if err := os.WriteFile(values, []byte(wavekitRBACValues), 0o644); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, bins.helm, "template", "wavekit", filepath.Join(bins.repoRoot, "config", "chart"),
		"--namespace", wavekitNamespace, "--values", values).Output()
	if err != nil {
		return fmt.Errorf("helm template config/chart: %w", err)
	}
	rbac := []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}
	return c.applyYAML(ctx, "the operator chart", string(out), func(kind string) bool { return slices.Contains(rbac, kind) })
}

// freeAddress returns a loopback address with a port nobody listens on.
func freeAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
