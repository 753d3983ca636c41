package helm_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// prefix is the operator name (annotation prefix) of every test render.
const prefix = "wavekit.test"

var (
	// helmBin is the helm CLI built from the module's own Helm version.
	helmBin string
	// charts is a copy of testdata/charts with umbrella's packaged subchart
	// (charts/packaged-0.1.0.tgz) built from testdata/packaged.
	charts string
	// helmTestdata is the Helm module's source directory.
	helmModule string
	// helmHome isolates the helm CLI from the user's configuration.
	helmHome string
)

func TestHelm(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "helm generator")
}

var _ = SynchronizedBeforeSuite(func() []byte {
	dir, err := os.MkdirTemp("", "wavekit-helm-suite-")
	Expect(err).NotTo(HaveOccurred())
	buildHelm(dir)
	prepareCharts(dir)
	return []byte(dir)
}, func(data []byte) {
	dir := string(data)
	helmBin = filepath.Join(dir, "helm")
	charts = filepath.Join(dir, "charts")
	helmHome = filepath.Join(dir, "home")
	out, err := goCommand("list", "-m", "-f", "{{.Dir}}", "helm.sh/helm/v3").Output()
	Expect(err).NotTo(HaveOccurred())
	helmModule = strings.TrimSpace(string(out))
})

var _ = SynchronizedAfterSuite(func() {}, func() {
	if charts != "" {
		Expect(os.RemoveAll(filepath.Dir(charts))).To(Succeed())
	}
})

func goCommand(args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = testcluster.ModuleRoot()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	return cmd
}

// buildHelm builds the helm CLI from the Helm module that wavekit requires,
// so the oracle and the generator run the same Helm code.
func buildHelm(dir string) {
	cmd := goCommand("build", "-o", filepath.Join(dir, "helm"), "helm.sh/helm/v3/cmd/helm")
	out, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "building helm: %s", out)
}

// prepareCharts copies testdata/charts and packages testdata/packaged into
// umbrella's charts/ with Helm's own chartutil.Save.
func prepareCharts(dir string) {
	dst := filepath.Join(dir, "charts")
	Expect(os.CopyFS(dst, os.DirFS("testdata/charts"))).To(Succeed())
	packaged, err := loader.LoadDir("testdata/packaged")
	Expect(err).NotTo(HaveOccurred())
	_, err = chartutil.Save(packaged, filepath.Join(dst, "umbrella", "charts"))
	Expect(err).NotTo(HaveOccurred())
}

// chartPath returns the path of a chart: "helm:<path>" names a chart of the
// Helm module's own test data, anything else one of the prepared test
// charts. Table entries hold names, resolved only when the spec runs.
func chartPath(name string) string {
	if rel, ok := strings.CutPrefix(name, "helm:"); ok {
		return filepath.Join(helmModule, rel)
	}
	return filepath.Join(charts, name)
}

// installCtx is the context of a first apply by operator prefix.
func installCtx() context.Context {
	return manifests.WithComponentInfo(context.Background(),
		manifests.ComponentInfo{OperatorName: prefix, FirstApply: true, Revision: 1})
}

// upgradeCtx is the context of a later apply.
func upgradeCtx(revision int64) context.Context {
	return manifests.WithComponentInfo(context.Background(),
		manifests.ComponentInfo{OperatorName: prefix, Revision: revision})
}

// load returns a Generator for a chart path.
func load(path string, opts ...helm.Option) *helm.Generator {
	g, err := helm.Load(path, opts...)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return g
}

// render runs Generate and fails the spec on error.
func render(ctx context.Context, g *helm.Generator, values manifests.Values) []client.Object {
	objects, err := g.Generate(ctx, "ns", "rel", values)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return objects
}

// helmTemplate runs `helm template rel CHART --namespace ns --include-crds`
// with values as a -f file plus args, and returns stdout or the error text
// that helm printed.
func helmTemplate(chart string, values map[string]any, args ...string) (string, error) {
	argv := []string{"template", "rel", chart, "--namespace", "ns", "--include-crds"}
	if values != nil {
		data, err := yaml.Marshal(values)
		Expect(err).NotTo(HaveOccurred())
		file := filepath.Join(GinkgoT().TempDir(), "values.yaml")
		Expect(os.WriteFile(file, data, 0o600)).To(Succeed())
		argv = append(argv, "-f", file)
	}
	cmd := exec.Command(helmBin, append(argv, args...)...)
	cmd.Env = append(os.Environ(),
		"HELM_CONFIG_HOME="+filepath.Join(helmHome, "config"),
		"HELM_CACHE_HOME="+filepath.Join(helmHome, "cache"),
		"HELM_DATA_HOME="+filepath.Join(helmHome, "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s", helmError(stderr.String()))
	}
	return stdout.String(), nil
}

// helmError returns the message helm printed after "Error: ", without the
// CLI's hint about --debug.
func helmError(stderr string) string {
	_, msg, found := strings.Cut(stderr, "Error: ")
	if !found {
		return stderr
	}
	msg, _, _ = strings.Cut(msg, "\n\nUse --debug flag")
	return strings.TrimSpace(msg)
}

// decode splits a YAML stream into objects as maps, without wavekit
// annotations (see asMaps).
func decode(stream string) []map[string]any {
	objects, err := manifests.DecodeObjects("helm template", []byte(stream))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	out := make([]map[string]any, 0, len(objects))
	for _, obj := range objects {
		stripWavekitAnnotations(obj)
		out = append(out, obj.Object)
	}
	return out
}

// asYAML prints objects as one YAML document, for readable diffs.
func asYAML(objects []map[string]any) string {
	data, err := yaml.Marshal(objects)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return string(data)
}

// asMaps returns the objects' content with the wavekit annotations (those
// with the test prefix) removed: what helm template would print for them.
func asMaps(objects []client.Object) []map[string]any {
	out := make([]map[string]any, 0, len(objects))
	for _, obj := range objects {
		u := obj.(*unstructured.Unstructured).DeepCopy()
		stripWavekitAnnotations(u)
		out = append(out, u.Object)
	}
	return out
}

func stripWavekitAnnotations(u *unstructured.Unstructured) {
	annotations, found, _ := unstructured.NestedStringMap(u.Object, "metadata", "annotations")
	if !found {
		return
	}
	for key := range annotations {
		if strings.HasPrefix(key, prefix+"/") {
			delete(annotations, key)
		}
	}
	if len(annotations) == 0 {
		unstructured.RemoveNestedField(u.Object, "metadata", "annotations")
		return
	}
	u.SetAnnotations(annotations)
}

// annotationsOf returns the wavekit annotations of an object, keyed by suffix.
func annotationsOf(obj client.Object) map[string]string {
	out := map[string]string{}
	for key, value := range obj.GetAnnotations() {
		if suffix, ok := strings.CutPrefix(key, prefix+"/"); ok {
			out[suffix] = value
		}
	}
	return out
}

// byName finds a rendered object by kind and name.
func byName(objects []client.Object, kind, name string) client.Object {
	for _, obj := range objects {
		if obj.GetObjectKind().GroupVersionKind().Kind == kind && obj.GetName() == name {
			return obj
		}
	}
	Fail(fmt.Sprintf("no %s %s among the rendered objects", kind, name), 1)
	return nil
}

// names lists "Kind/name" of objects in order.
func names(objects []client.Object) []string {
	out := make([]string, 0, len(objects))
	for _, obj := range objects {
		out = append(out, obj.GetObjectKind().GroupVersionKind().Kind+"/"+obj.GetName())
	}
	return out
}

// data returns a ConfigMap's data.
func data(obj client.Object) map[string]string {
	d, _, err := unstructured.NestedStringMap(obj.(*unstructured.Unstructured).Object, "data")
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return d
}

// writeChart writes a chart named name with the given files (path → content)
// into a temporary directory and returns its path.
func writeChart(name string, files map[string]string) string {
	dir := filepath.Join(GinkgoT().TempDir(), name)
	files["Chart.yaml"] = "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n"
	for path, content := range files {
		file := filepath.Join(dir, path)
		ExpectWithOffset(1, os.MkdirAll(filepath.Dir(file), 0o755)).To(Succeed())
		ExpectWithOffset(1, os.WriteFile(file, []byte(content), 0o600)).To(Succeed())
	}
	return dir
}
