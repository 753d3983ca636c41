package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"
)

// serviceAccountUser is the user name the API server gives a
// ServiceAccount's tokens.
func serviceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// ensureNamespace creates namespace ns unless it exists.
func (c *cluster) ensureNamespace(ctx context.Context, ns string) error {
	_, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", ns, err)
	}
	return nil
}

// tokenKubeconfig writes a kubeconfig into the cluster's directory that
// reaches the API server with a token of ServiceAccount namespace/name (and
// no client certificate), as a controller in a pod would.
func (c *cluster) tokenKubeconfig(ctx context.Context, namespace, name string) (string, error) {
	seconds := int64(24 * 3600)
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}
	token, err := c.kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, request, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("requesting a token of ServiceAccount %s/%s: %w", namespace, name, err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: c.config.Host, CertificateAuthorityData: c.config.CAData}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: token.Status.Token}
	kc.Contexts["sa"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: name, Namespace: namespace}
	kc.CurrentContext = "sa"
	path := filepath.Join(c.dir, name+".kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}

// applyYAMLFiles server-side applies every object of the YAML files as the
// administrator.
func (c *cluster) applyYAMLFiles(ctx context.Context, paths ...string) error {
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := c.applyYAML(ctx, path, string(data), nil); err != nil {
			return err
		}
	}
	return nil
}

// applyYAML server-side applies the objects of a YAML stream whose kind
// keep accepts (nil: every kind); source names the stream in errors.
func (c *cluster) applyYAML(ctx context.Context, source, stream string, keep func(kind string) bool) error {
	for _, doc := range strings.Split(stream, "\n---") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			return fmt.Errorf("decoding %s: %w", source, err)
		}
		if len(u.Object) == 0 || (keep != nil && !keep(u.GetKind())) {
			continue
		}
		if err := c.apply(ctx, u); err != nil {
			return fmt.Errorf("%s: %w", source, err)
		}
	}
	return nil
}

// apply server-side applies u as the administrator.
func (c *cluster) apply(ctx context.Context, u *unstructured.Unstructured) error {
	gvr, err := c.resourceFor(u)
	if err != nil {
		return err
	}
	data, err := u.MarshalJSON()
	if err != nil {
		return err
	}
	force := true
	_, err = c.dynamic.Resource(gvr).Namespace(u.GetNamespace()).Patch(ctx, u.GetName(), types.ApplyPatchType, data,
		metav1.PatchOptions{FieldManager: "bench-peers", Force: &force})
	if err != nil {
		return fmt.Errorf("applying %s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return nil
}

// resourceFor finds the resource that serves u's kind.
func (c *cluster) resourceFor(u *unstructured.Unstructured) (schema.GroupVersionResource, error) {
	gvk := u.GroupVersionKind()
	resources, err := c.kube.Discovery().ServerResourcesForGroupVersion(gvk.GroupVersion().String())
	if err != nil {
		return schema.GroupVersionResource{}, fmt.Errorf("finding the resource of %s: %w", gvk, err)
	}
	for _, r := range resources.APIResources {
		if r.Kind == gvk.Kind && !strings.Contains(r.Name, "/") {
			return gvk.GroupVersion().WithResource(r.Name), nil
		}
	}
	return schema.GroupVersionResource{}, fmt.Errorf("the API server serves no %s", gvk)
}
