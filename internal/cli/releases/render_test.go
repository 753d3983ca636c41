package releases_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/version"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// decode splits rendered YAML into objects.
func decode(stream string) []string {
	GinkgoHelper()
	objects, err := manifests.DecodeObjects("output", []byte(stream))
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, obj := range objects {
		out = append(out, obj.GetKind()+" "+obj.GetName())
	}
	return out
}

var _ = Describe("render", func() {
	It("prints a template folder in apply order without a cluster", func() {
		r := clitest.WavekitWith(clitest.Unreachable, "render", "../testdata/web", "--name", "demo", "--kube-version", "1.33.0")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(decode(r.Stdout)).To(Equal([]string{"ConfigMap demo-config", "ConfigMap demo-app"}))
		Expect(r.Stdout).To(ContainSubstring(`wavekit.dev/apply-order: "1"`))
	})

	It("prints -o json as one v1 List of the same objects in the same order, as kubectl get -o json", func() {
		r := clitest.WavekitWith(clitest.Unreachable, "render", "../testdata/web", "--name", "demo", "-o", "json")
		Expect(r.Code).To(Equal(0), r.Stderr)
		var list struct {
			APIVersion, Kind string
			Items            []unstructured.Unstructured
		}
		Expect(json.Unmarshal([]byte(r.Stdout), &list)).To(Succeed())
		Expect(list.APIVersion).To(Equal("v1"))
		Expect(list.Kind).To(Equal("List"))
		var names []string
		for _, item := range list.Items {
			names = append(names, item.GetKind()+" "+item.GetName())
		}
		Expect(names).To(Equal(decode(clitest.Succeeds("render", "../testdata/web", "--name", "demo", "-o", "yaml"))))
		Expect(names).To(Equal([]string{"ConfigMap demo-config", "ConfigMap demo-app"}))
	})

	It("refuses an unknown -o format before it renders", func() {
		r := clitest.WavekitWith(clitest.Unreachable, "render", "../testdata/web", "-o", "xml")
		Expect(r.Code).To(Equal(1))
		Expect(strings.TrimSpace(r.Stderr)).To(Equal("error: --output xml: unknown format (use yaml or json)"))
		Expect(r.Stdout).To(BeEmpty())
	})

	It("puts a CRD before the instances it serves", func() {
		out := clitest.Succeeds("render", "../testdata/gadgets", "--name", "g")
		Expect(decode(out)).To(Equal([]string{"CustomResourceDefinition gadgets.cli.test.wavekit.dev", "Gadget g-own"}))
	})

	It("merges -f files, then --set values", func() {
		out := clitest.Succeeds("render", "../testdata/web", "--name", "demo", "-f", "../testdata/values.yaml", "--set", "greeting=from-set")
		Expect(decode(out)).To(Equal([]string{"ConfigMap demo-config", "ConfigMap demo-extra", "ConfigMap demo-app"}))
		Expect(out).To(ContainSubstring("greeting: from-set"))
	})

	It("renders a chart with the cluster's capabilities under --validate, or with --kube-version", func() {
		out := clitest.Succeeds("render", "../testdata/chart", "-n", "apps", "--validate")
		Expect(decode(out)).To(Equal([]string{"ConfigMap chart-tiny"}))
		Expect(out).To(ContainSubstring("namespace: apps"))
		Expect(out).To(MatchRegexp(`kubeVersion: v1\.37\.`))

		r := clitest.WavekitWith(clitest.Unreachable, "render", "../testdata/chart", "--kube-version", "1.30.2", "--set", "message=yo")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("kubeVersion: v1.30.2"))
		Expect(r.Stdout).To(ContainSubstring("message: yo"))
	})

	It("renders a kustomization", func() {
		out := clitest.Succeeds("render", "../testdata/kustomize", "--name", "x", "--set", "color=red", "--kube-version", "1.33.0")
		Expect(decode(out)).To(Equal([]string{"ConfigMap kz-x"}))
		Expect(out).To(ContainSubstring("color: red"))
	})

	It("renders without a cluster by default, for the Kubernetes version it is built against", func() {
		r := clitest.WavekitWith(clitest.Unreachable, "render", "../testdata/chart", "--set", "message=yo")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("kubeVersion: v" + version.Kubernetes))
	})

	It("needs the cluster with --validate, and says so", func() {
		r := clitest.WavekitWith(clitest.Unreachable, "render", "../testdata/web", "--validate")
		Expect(r.Code).To(Equal(1))
		Expect(strings.TrimSpace(r.Stderr)).To(Equal("error: cannot reach the cluster at https://127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused (render without --validate needs no cluster)"))
		r = clitest.WavekitWith(clitest.Unreachable, "render", "../testdata/web", "--validate", "--kube-version", "1.33.0")
		Expect(r.Stderr).To(ContainSubstring("give one of them"))
	})

	It("says which versions it is, and is built against the client-go of go.mod", func() {
		out := clitest.Succeeds("version")
		Expect(out).To(MatchRegexp(`^wavekit .+\ngo go1\.\d+.*\nkubernetes ` + regexp.QuoteMeta(version.Kubernetes) + `\n$`))
		goMod, err := os.ReadFile("../../../go.mod")
		Expect(err).NotTo(HaveOccurred())
		minor := strings.TrimPrefix(version.Kubernetes, "1.")
		Expect(string(goMod)).To(ContainSubstring("k8s.io/client-go v0." + minor + "\n"))
		Expect(clitest.Succeeds("--version")).To(Equal(out), "wavekit --version prints what wavekit version prints")
	})
})
