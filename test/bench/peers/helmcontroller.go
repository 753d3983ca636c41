package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	fluxNamespace = "flux-system"
	fluxAccount   = "helm-controller"
	// releaseInterval is how often both tools look at a release again
	// (HelmRelease spec.interval, Component spec.intervals.requeue).
	releaseInterval = "5m"
)

// fluxRBAC is the ServiceAccount of helm-controller and its binding to
// cluster-admin, as Flux's install binds its reconcilers.
const fluxRBAC = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: helm-controller
  namespace: flux-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: bench-helm-controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
  - kind: ServiceAccount
    name: helm-controller
    namespace: flux-system
`

var externalArtifacts = schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "externalartifacts"}

// helmControllerTool is Flux helm-controller with the ExternalArtifact
// feature gate: the bench plays source-controller, making one
// ExternalArtifact for the chart and serving its tarball.
type helmControllerTool struct{}

func (helmControllerTool) name() string { return "helm-controller" }

func (helmControllerTool) user() string { return serviceAccountUser(fluxNamespace, fluxAccount) }

func (helmControllerTool) version(bins binaries) string {
	return strings.TrimPrefix(filepath.Base(bins.helmController), "helm-controller-")
}

func (helmControllerTool) resource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"}
}

func (helmControllerTool) release(name, message string, _ *chartRepository) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": name, "namespace": benchNamespace},
		"spec": map[string]any{
			"interval": releaseInterval,
			"chartRef": map[string]any{"kind": "ExternalArtifact", "name": chartName, "namespace": benchNamespace},
			"values":   map[string]any{"message": message},
		},
	}}
}

// start installs the HelmRelease and ExternalArtifact CRDs, the
// ServiceAccount and its binding, the chart's ExternalArtifact, and runs
// helm-controller as that ServiceAccount with its default flags.
func (t helmControllerTool) start(ctx context.Context, c *cluster, bins binaries, repo *chartRepository) (*controller, error) {
	crds, err := filepath.Glob(filepath.Join(bins.helmController, "crds", "*.yaml"))
	if err != nil || len(crds) < 2 {
		return nil, fmt.Errorf("no CRDs in %s/crds", bins.helmController)
	}
	if err := c.ensureNamespace(ctx, fluxNamespace); err != nil {
		return nil, err
	}
	if err := c.applyYAMLFiles(ctx, crds...); err != nil {
		return nil, err
	}
	if err := c.applyYAML(ctx, "helm-controller's RBAC", fluxRBAC, nil); err != nil {
		return nil, err
	}
	for _, gvr := range []schema.GroupVersionResource{t.resource(), externalArtifacts} {
		if err := c.waitServed(ctx, gvr); err != nil {
			return nil, err
		}
	}
	if err := c.createExternalArtifact(ctx, repo); err != nil {
		return nil, err
	}
	kubeconfig, err := c.tokenKubeconfig(ctx, fluxNamespace, fluxAccount)
	if err != nil {
		return nil, err
	}
	return startController("helm-controller", filepath.Join(bins.helmController, "helm-controller"),
		filepath.Join(c.dir, "helm-controller.log"),
		[]string{"--feature-gates=ExternalArtifact=true", "--metrics-addr=0", "--health-addr=0", "--watch-all-namespaces=true"},
		[]string{"KUBECONFIG=" + kubeconfig, "RUNTIME_NAMESPACE=" + fluxNamespace})
}

// createExternalArtifact creates the chart's ExternalArtifact and sets its
// status as source-controller would: the artifact's URL, revision and
// digest, and Ready.
func (c *cluster) createExternalArtifact(ctx context.Context, repo *chartRepository) error {
	ea := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "ExternalArtifact",
		"metadata": map[string]any{"name": chartName, "namespace": benchNamespace},
		"spec":     map[string]any{},
	}}
	created, err := c.dynamic.Resource(externalArtifacts).Namespace(benchNamespace).Create(ctx, ea, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating ExternalArtifact %s: %w", chartName, err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	created.Object["status"] = map[string]any{
		"artifact": map[string]any{
			"path": fmt.Sprintf("externalartifact/%s/%s/%s-%s.tgz", benchNamespace, chartName, chartName, chartVersion),
			"url":  repo.tarballURL(), "revision": chartVersion, "digest": repo.digest,
			"lastUpdateTime": now, "size": repo.size,
		},
		"conditions": []any{map[string]any{
			"type": "Ready", "status": "True", "reason": "Succeeded", "lastTransitionTime": now,
			"message": "stored artifact for revision " + chartVersion, "observedGeneration": created.GetGeneration(),
		}},
	}
	if _, err := c.dynamic.Resource(externalArtifacts).Namespace(benchNamespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("setting the status of ExternalArtifact %s: %w", chartName, err)
	}
	return nil
}
