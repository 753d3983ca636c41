// Package chart_test checks the operator's Helm chart (config/chart): helm lint, what
// helm template renders for default and non-default values, and that both renders apply
// to a real API server.
package chart_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var (
	root     = testcluster.ModuleRoot()
	chartDir = filepath.Join(root, "config", "chart")
	helmBin  string
	helmHome string
)

func TestChart(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "operator chart")
}

// The helm CLI is built from the module (go.mod has `tool helm.sh/helm/v3/cmd/helm`), so it
// is the Helm version the generators use.
var _ = BeforeSuite(func() {
	dir := GinkgoT().TempDir()
	helmBin = filepath.Join(dir, "helm")
	helmHome = filepath.Join(dir, "home")
	build := exec.Command("go", "build", "-o", helmBin, "helm.sh/helm/v3/cmd/helm")
	build.Dir = root
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := build.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "building helm:\n%s", out)
})

// helm runs the helm CLI in the module root with its own cache and config directories and
// returns its standard output; stderr is part of the error.
func helm(args ...string) (string, error) {
	cmd := exec.Command(helmBin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(helmHome, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(helmHome, "config"),
		"HELM_DATA_HOME="+filepath.Join(helmHome, "data"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %w: %s%s", strings.Join(args, " "), err, stderr.String(), stdout.String())
	}
	return stdout.String(), nil
}

// render runs `helm template` for the chart (CRDs included) and decodes the objects.
func render(release, namespace string, args ...string) []*unstructured.Unstructured {
	GinkgoHelper()
	out, err := helm(append([]string{"template", release, chartDir, "--namespace", namespace, "--include-crds"}, args...)...)
	Expect(err).NotTo(HaveOccurred())
	objects, err := manifests.DecodeObjects("helm template", []byte(out))
	Expect(err).NotTo(HaveOccurred())
	return objects
}

// ids names the objects as "Kind namespace/name" (namespace empty for cluster-scoped ones).
func ids(objects []*unstructured.Unstructured) []string {
	var names []string
	for _, u := range objects {
		names = append(names, u.GetKind()+" "+u.GetNamespace()+"/"+u.GetName())
	}
	return names
}

// object returns the rendered object of the given kind, namespace and name.
func object(objects []*unstructured.Unstructured, kind, namespace, name string) *unstructured.Unstructured {
	GinkgoHelper()
	for _, u := range objects {
		if u.GetKind() == kind && u.GetNamespace() == namespace && u.GetName() == name {
			return u
		}
	}
	Fail("rendered no " + kind + " " + namespace + "/" + name)
	return nil
}

// find converts the rendered object of the given kind, namespace and name into out.
func find(objects []*unstructured.Unstructured, kind, namespace, name string, out any) {
	GinkgoHelper()
	u := object(objects, kind, namespace, name)
	Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out)).To(Succeed())
}
