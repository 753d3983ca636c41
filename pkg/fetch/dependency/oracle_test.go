package dependency_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// helmTemplate is what `helm template rel DIR --namespace ns
// --include-crds -f values` prints, as maps.
func helmTemplate(dir string, values manifests.Values) []map[string]any {
	args := []string{"template", "rel", dir, "--namespace", "ns", "--include-crds"}
	if values != nil {
		data, err := yaml.Marshal(values)
		ExpectWithOffset(1, err).NotTo(HaveOccurred())
		file := filepath.Join(GinkgoT().TempDir(), "values.yaml")
		ExpectWithOffset(1, os.WriteFile(file, data, 0o600)).To(Succeed())
		args = append(args, "-f", file)
	}
	stream, err := helmCLI.Run(dir, args...)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	objects, err := manifests.DecodeObjects("helm template", []byte(stream))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	out := make([]map[string]any, 0, len(objects))
	for _, obj := range objects {
		out = append(out, obj.Object)
	}
	return out
}

// asMaps is the objects' content without wavekit's annotations: what helm
// template prints of them.
func asMaps(objects []client.Object) []map[string]any {
	out := make([]map[string]any, 0, len(objects))
	for _, obj := range objects {
		u := obj.(*unstructured.Unstructured).DeepCopy()
		annotations := u.GetAnnotations()
		for key := range annotations {
			if strings.HasPrefix(key, prefix+"/") {
				delete(annotations, key)
			}
		}
		if len(annotations) == 0 {
			unstructured.RemoveNestedField(u.Object, "metadata", "annotations")
		} else {
			u.SetAnnotations(annotations)
		}
		out = append(out, u.Object)
	}
	return out
}

// asYAML prints objects as one YAML document, for readable diffs.
func asYAML(objects []map[string]any) string {
	data, err := yaml.Marshal(objects)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return string(data)
}
