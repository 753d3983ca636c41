package helm_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// wavekitView drops from helm template's output what the generator leaves
// out of a render (see docs/helm.md): rollback-only hooks, and on install the
// hooks that fire on upgrade only.
func wavekitView(objects []map[string]any, install bool) []map[string]any {
	var out []map[string]any
	for _, obj := range objects {
		hook, found, _ := unstructured.NestedString(obj, "metadata", "annotations", "helm.sh/hook")
		if !found || keepsHook(hook, install) {
			out = append(out, obj)
		}
	}
	return out
}

func keepsHook(hook string, install bool) bool {
	events := map[string]bool{}
	for _, e := range strings.Split(hook, ",") {
		events[strings.ToLower(strings.TrimSpace(e))] = true
	}
	onInstall := events["pre-install"] || events["post-install"]
	onUpgrade := events["pre-upgrade"] || events["post-upgrade"]
	switch {
	case events["test"] || events["test-success"]:
		return true
	case onInstall || onUpgrade:
		return onInstall || !install
	default:
		return events["pre-delete"] || events["post-delete"]
	}
}

type oracleCase struct {
	chart   string
	values  manifests.Values
	upgrade bool
	opts    []helm.Option
	args    []string
}

var _ = Describe("rendering compared with helm template", func() {
	DescribeTable("gives the objects helm template gives, apart from the hook translation",
		func(c oracleCase) {
			ctx, args := installCtx(), c.args
			if c.upgrade {
				ctx, args = upgradeCtx(1), append(args, "--is-upgrade")
			}
			stream, err := helmTemplate(chartPath(c.chart), c.values, args...)
			Expect(err).NotTo(HaveOccurred())
			expected := wavekitView(decode(stream), !c.upgrade)
			Expect(expected).NotTo(BeEmpty())

			objects := render(ctx, load(chartPath(c.chart), c.opts...), c.values)
			Expect(asYAML(asMaps(objects))).To(Equal(asYAML(expected)))
		},
		Entry("basic: helpers, include, tpl, required, toToml, .Files, NOTES, List", oracleCase{chart: "basic"}),
		Entry("basic with values, as an upgrade", oracleCase{
			chart:   "basic",
			upgrade: true,
			values: manifests.Values{"replicas": 5, "image": manifests.Values{"tag": "2.0"},
				"service": manifests.Values{"enabled": false}, "big": 12345678, "greeting": "{{ .Chart.Name }}!"},
		}),
		Entry("umbrella: subchart dir and .tgz, library, import-values, aliases, globals", oracleCase{chart: "umbrella"}),
		Entry("umbrella with conditions and tags switched", oracleCase{
			chart: "umbrella",
			values: manifests.Values{"tags": manifests.Values{"extras": false}, "second": manifests.Values{"enabled": false},
				"third": manifests.Values{"enabled": true, "message": "third"}, "global": manifests.Values{"env": "dev"}},
		}),
		Entry("schema with valid values", oracleCase{chart: "schema", values: manifests.Values{"replicas": 3}}),
		Entry("hooks and crds/ on install", oracleCase{chart: "hooks"}),
		Entry("hooks and crds/ on upgrade", oracleCase{chart: "hooks", upgrade: true}),
		Entry(".helmignore", oracleCase{chart: "ignored"}),
		Entry("lookup without a cluster", oracleCase{chart: "lookup"}),
		Entry("capabilities with a kube version and extra API versions", oracleCase{
			chart: "capabilities",
			opts:  []helm.Option{helm.WithKubeVersion("v1.31.2"), helm.WithAPIVersions("extra.wavekit.dev/v1")},
			args:  []string{"--kube-version", "v1.31.2", "--api-versions", "extra.wavekit.dev/v1"},
		}),
		Entry("values: scalar over map, map over scalar, null deletes, lists replace", oracleCase{
			chart: "merge",
			values: manifests.Values{"resources": "none", "mode": manifests.Values{"complex": true}, "tolerations": []any{},
				"nested": manifests.Values{"drop": nil, "deeper": manifests.Values{"b": 20, "c": 30}}, "count": 1000000},
		}),
		Entry("helm testdata: subchart", oracleCase{chart: "helm:cmd/helm/testdata/testcharts/subchart"}),
		Entry("helm testdata: subchart with values", oracleCase{
			chart:  "helm:cmd/helm/testdata/testcharts/subchart",
			values: manifests.Values{"subchartA": manifests.Values{"enabled": true}, "tags": manifests.Values{"front-end": false}},
		}),
		Entry("helm testdata: object-order", oracleCase{chart: "helm:cmd/helm/testdata/testcharts/object-order"}),
		Entry("helm testdata: chart-with-lib-dep", oracleCase{chart: "helm:cmd/helm/testdata/testcharts/chart-with-lib-dep"}),
		Entry("helm testdata: chart-with-template-lib-dep", oracleCase{chart: "helm:cmd/helm/testdata/testcharts/chart-with-template-lib-dep"}),
		Entry("helm testdata: chart-with-template-lib-archive-dep", oracleCase{chart: "helm:cmd/helm/testdata/testcharts/chart-with-template-lib-archive-dep"}),
		Entry("helm testdata: chart-with-secret", oracleCase{chart: "helm:cmd/helm/testdata/testcharts/chart-with-secret"}),
		Entry("helm testdata: chart-with-only-crds", oracleCase{chart: "helm:cmd/helm/testdata/testcharts/chart-with-only-crds"}),
		Entry("helm testdata: alpine", oracleCase{chart: "helm:cmd/helm/testdata/testcharts/alpine"}),
		Entry("helm testdata: subpop (nested dependencies and import-values)", oracleCase{chart: "helm:pkg/chartutil/testdata/subpop"}),
	)

	DescribeTable("fails with the message helm template prints",
		func(chart string, values manifests.Values) {
			_, helmErr := helmTemplate(chartPath(chart), values)
			Expect(helmErr).To(HaveOccurred())

			objects, err := load(chartPath(chart)).Generate(installCtx(), "ns", "rel", values)
			Expect(err).To(HaveOccurred())
			Expect(objects).To(BeNil())
			// Helm lists schema violations in random order; the generator sorts them.
			helmLines := strings.Split(helmErr.Error(), "\n")
			lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
			Expect(lines).To(HaveLen(len(helmLines)))
			for _, line := range helmLines {
				Expect(lines).To(ContainElement(ContainSubstring(line)))
			}
		},
		Entry("required", "failing", manifests.Values{"mode": "required"}),
		Entry("nil pointer", "failing", manifests.Values{"mode": "nil"}),
		Entry("fail", "failing", manifests.Values{"mode": "fail"}),
		Entry("invalid YAML", "failing", manifests.Values{"mode": "yaml"}),
		Entry("schema violation", "schema", manifests.Values{"replicas": 0, "image": manifests.Values{"tag": "latest"}}),
		Entry("helm testdata: issue1979", "helm:cmd/helm/testdata/testcharts/issue1979", nil),
		Entry("helm testdata: chart-with-schema-negative", "helm:cmd/helm/testdata/testcharts/chart-with-schema-negative", nil),
	)
})
