package operatortest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// rbacKinds are the kinds of the chart's identity.
var rbacKinds = map[string]bool{"ServiceAccount": true, "ClusterRole": true, "ClusterRoleBinding": true, "Role": true, "RoleBinding": true}

// RBAC renders the chart at chartDir as release in namespace with values
// and returns its ServiceAccount and RBAC objects only. A release without
// sources gets a placeholder one (the chart refuses none).
func RBAC(chartDir, release, namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	if _, ok := values["sources"]; !ok {
		values["sources"] = []any{map[string]any{"name": "web", "path": "/opt/sources/web"}}
	}
	chart, err := loader.Load(chartDir)
	if err != nil {
		return nil, fmt.Errorf("loading the chart: %w", err)
	}
	renderValues, err := chartutil.ToRenderValues(chart, values,
		chartutil.ReleaseOptions{Name: release, Namespace: namespace, IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, fmt.Errorf("the chart's values: %w", err)
	}
	files, err := engine.Render(chart, renderValues)
	if err != nil {
		return nil, fmt.Errorf("rendering the chart: %w", err)
	}
	var out []*unstructured.Unstructured
	for name, content := range files {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		objects, err := manifests.DecodeObjects(name, []byte(content))
		if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", name, err)
		}
		for _, u := range objects {
			if rbacKinds[u.GetKind()] {
				out = append(out, u)
			}
		}
	}
	return out, nil
}

// ApplyRBAC creates what RBAC returns for the chart of the module at root.
func ApplyRBAC(ctx context.Context, c client.Client, root, release, namespace string, values map[string]any) error {
	objects, err := RBAC(filepath.Join(root, "config", "chart"), release, namespace, values)
	if err != nil {
		return err
	}
	for _, u := range objects {
		if err := c.Create(ctx, u); err != nil {
			return fmt.Errorf("creating %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

// ServiceAccountConfig creates the ServiceAccount if it does not exist yet
// and returns a copy of cfg that reaches the API server with an hour's
// token of it and no client certificate.
func ServiceAccountConfig(ctx context.Context, c client.Client, cfg *rest.Config, namespace, name string) (*rest.Config, error) {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if err := client.IgnoreAlreadyExists(c.Create(ctx, sa)); err != nil {
		return nil, fmt.Errorf("creating the ServiceAccount %s/%s: %w", namespace, name, err)
	}
	expiry := int64(3600)
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}
	if err := c.SubResource("token").Create(ctx, sa, request); err != nil {
		return nil, fmt.Errorf("requesting a token of %s/%s: %w", namespace, name, err)
	}
	out := rest.AnonymousClientConfig(cfg)
	out.BearerToken = request.Status.Token
	return out, nil
}
