package helm_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The generator decodes each rendered document once (documents.go) instead
// of going through releaseutil.SortManifests and manifests.DecodeObjects;
// these specs check that both give the same objects (Go types included:
// int64 against float64), the same order and the same errors.

// contents returns the objects' content, annotations included.
func contents(objects []client.Object) []map[string]any {
	out := make([]map[string]any, 0, len(objects))
	for _, obj := range objects {
		out = append(out, obj.(*unstructured.Unstructured).Object)
	}
	return out
}

func expectSameWays(fast, viaHelm helm.Collected) {
	GinkgoHelper()
	if viaHelm.Err != nil {
		Expect(fast.Err).To(MatchError(viaHelm.Err.Error()))
		Expect(fast.Objects).To(BeNil())
		return
	}
	Expect(fast.Err).NotTo(HaveOccurred())
	Expect(contents(fast.Objects)).To(Equal(contents(viaHelm.Objects)))
}

var _ = Describe("decoding the rendered documents once", func() {
	DescribeTable("gives what Helm's SortManifests and DecodeObjects give, for the test charts",
		func(chart string, upgrade, fastPath bool, values manifests.Values) {
			ctx := installCtx()
			if upgrade {
				ctx = upgradeCtx(2)
			}
			fast, viaHelm, took, err := helm.CollectBothWays(ctx, load(chartPath(chart)), "ns", "rel", values)
			Expect(err).NotTo(HaveOccurred())
			Expect(took).To(Equal(fastPath))
			Expect(viaHelm.Err).NotTo(HaveOccurred())
			expectSameWays(fast, viaHelm)
		},
		Entry("basic", "basic", false, true, nil),
		Entry("basic, upgrade", "basic", true, true, manifests.Values{"replicas": 5, "big": 12345678}),
		Entry("umbrella", "umbrella", false, true, nil),
		Entry("hooks", "hooks", false, true, nil),
		Entry("hooks, upgrade", "hooks", true, true, nil),
		Entry("merge", "merge", false, true, manifests.Values{"count": 1000000, "resources": "none"}),
		Entry("capabilities", "capabilities", false, true, nil),
		Entry("lookup", "lookup", false, true, nil),
		Entry("ignored", "ignored", false, true, nil),
		Entry("helm testdata: object-order", "helm:cmd/helm/testdata/testcharts/object-order", false, true, nil),
		Entry("helm testdata: subpop", "helm:pkg/chartutil/testdata/subpop", false, true, nil),
		Entry("helm testdata: alpine", "helm:cmd/helm/testdata/testcharts/alpine", false, true, nil),
		Entry("helm testdata: chart-with-secret", "helm:cmd/helm/testdata/testcharts/chart-with-secret", false, true, nil),
	)

	doc := func(kind, name string, rest ...string) string {
		return "apiVersion: v1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n" + strings.Join(rest, "\n")
	}

	DescribeTable("gives what Helm's SortManifests and DecodeObjects give, for odd documents",
		func(fastPath bool, files map[string]string) {
			for _, install := range []bool{true, false} {
				fast, viaHelm, took := helm.CollectFilesBothWays(files, prefix, install)
				expectSameWays(fast, viaHelm)
				Expect(took).To(Equal(fastPath), "fast path taken")
			}
		},
		Entry("kinds sorted by install order, unknown kinds alphabetically, stable over files and documents", true, map[string]string{
			"c/templates/b.yaml":  doc("Zeta", "z1") + "---\n" + doc("Deployment", "d1") + "\n---\n" + doc("Alpha", "a1") + "\n---\n" + doc("ConfigMap", "c1"),
			"c/templates/a.yaml":  doc("Deployment", "d0") + "\n---\n" + doc("Alpha", "a0") + "\n---\n" + doc("Namespace", "n0") + "\n---\n" + doc("ConfigMap", "c0"),
			"c/templates/_x.yaml": doc("ConfigMap", "partial"),
			"c/templates/e.yaml":  " \n\t\n",
			"c/NOTES.txt":         "notes: {{ not yaml",
		}),
		Entry("numbers as JSON gives them: whole numbers int64, others float64", true, map[string]string{
			"c/templates/n.yaml": doc("ConfigMap", "numbers", "spec:\n  a: 3\n  b: 3.0\n  c: 1.5\n  d: 1e6\n  e: 1000000.0\n  f: -0.0\n  g: 1e21\n  h: 0.000001\n"+
				"  i: 0.0000001\n  j: 9223372036854775807\n  k: -9223372036854775808\n  l: 1e20\n  m: 0x1F\n  n: 0o17\n  o: 017\n  p: 1_000\n  q: .5\n  r: 12e-1\n  s: 9007199254740993.0"),
		}),
		Entry("YAML 1.1 scalars, anchors, aliases and merge keys", true, map[string]string{
			"c/templates/y.yaml": doc("ConfigMap", "scalars", "base: &base\n  on: yes\n  no: off\n  nil: ~\n  t: 2024-01-02T03:04:05Z\nspec:\n  <<: *base\n  extra: *base\n  list: [a, 'b', \"c\\u00e9\", 1, true, null]\n  empty: {}\n  none: []"),
		}),
		Entry("a List, flattened in place and sorted as kind List", true, map[string]string{
			"c/templates/l.yaml": doc("Secret", "s") + "\n---\napiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ServiceAccount\n    metadata:\n      name: sa\n  - apiVersion: v1\n    kind: Pod\n    metadata:\n      name: p\n---\n" + doc("Widget", "w"),
		}),
		Entry("hooks: events, weights, delete policies, unknown and test events, block scalars", true, map[string]string{
			"c/templates/h.yaml": doc("Job", "pre", "  annotations:\n    helm.sh/hook: Pre-Install , pre-upgrade\n    helm.sh/hook-weight: \"-5\"\n    helm.sh/hook-delete-policy: hook-succeeded,before-hook-creation") + "\n---\n" +
				doc("ConfigMap", "post", "  annotations:\n    helm.sh/hook: post-install\n    helm.sh/hook-weight: \"x\"") + "\n---\n" +
				doc("ConfigMap", "unknown", "  annotations:\n    helm.sh/hook: pre-install,on-a-whim") + "\n---\n" +
				doc("ConfigMap", "empty", "  annotations:\n    helm.sh/hook: \"\"") + "\n---\n" +
				doc("Pod", "test", "  annotations:\n    helm.sh/hook: test-success") + "\n---\n" +
				doc("ConfigMap", "del", "  annotations:\n    helm.sh/hook: pre-delete\n    helm.sh/resource-policy: keep") + "\n---\n" +
				doc("ConfigMap", "upgrade", "  annotations:\n    helm.sh/hook: post-upgrade\n    note: |\n      last") + "\n---\n" +
				doc("ConfigMap", "plain", "  annotations:\n    other: x\ndata:\n  z: |\n    block at the end"),
		}),
		Entry("empty documents and separators", true, map[string]string{
			"c/templates/s.yaml": "---\n# comment only\n---   \n#\n---\n" + doc("ConfigMap", "a") + "\n--- # c\n{}\n---\nnull\n---\n\n\n" + doc("ConfigMap", "b") + "\n  \n---",
		}),
		Entry("a separator right after another", false, map[string]string{
			"c/templates/s.yaml": "---\n---\n" + doc("ConfigMap", "a"),
		}),
		Entry("invalid YAML", false, map[string]string{
			"c/templates/a.yaml": doc("ConfigMap", "ok"),
			"c/templates/b.yaml": doc("ConfigMap", "bad", "data:\n  a: [b"),
		}),
		Entry("a list at the top level", false, map[string]string{"c/templates/a.yaml": "- a\n- b"}),
		Entry("a scalar at the top level", false, map[string]string{"c/templates/a.yaml": "just text"}),
		Entry("a missing kind", false, map[string]string{"c/templates/a.yaml": "apiVersion: v1\nmetadata:\n  name: x"}),
		Entry("a kind in other case", false, map[string]string{"c/templates/a.yaml": "apiVersion: v1\nKind: ConfigMap\nkind: Secret\nmetadata:\n  name: x"}),
		Entry("a numeric annotation", false, map[string]string{
			"c/templates/a.yaml": doc("Job", "j", "  annotations:\n    helm.sh/hook: pre-install\n    helm.sh/hook-weight: 5"),
		}),
		Entry("a block scalar hook weight at the end", false, map[string]string{
			"c/templates/a.yaml": doc("Job", "j", "  annotations:\n    helm.sh/hook: pre-install\n    helm.sh/hook-weight: |\n      5"),
		}),
		Entry("numeric and boolean keys", true, map[string]string{"c/templates/a.yaml": doc("ConfigMap", "c", "data:\n  1: one\n  on: yes\n  1.5: x\n  .inf: y\n  -.Inf: z\n  .NaN: w\n  0x10: hex")}),
		Entry("a numeric name", false, map[string]string{"c/templates/a.yaml": doc("ConfigMap", "42")}),
		Entry("metadata that is not a mapping", false, map[string]string{"c/templates/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: x"}),
		Entry("a \\x escape", true, map[string]string{"c/templates/a.yaml": doc("ConfigMap", "c", "data:\n  a: \"\\xff\"")}),
		Entry("NaN", false, map[string]string{"c/templates/a.yaml": doc("ConfigMap", "c", "spec:\n  a: .nan")}),
		Entry("an integer beyond int64", false, map[string]string{"c/templates/a.yaml": doc("ConfigMap", "c", "spec:\n  a: 18446744073709551615")}),
		Entry("binary data that is not UTF-8", false, map[string]string{"c/templates/a.yaml": doc("ConfigMap", "c", "data:\n  a: !!binary /w==")}),
		Entry("a hook that is a List", true, map[string]string{
			"c/templates/a.yaml": "apiVersion: v1\nkind: List\nmetadata:\n  annotations:\n    helm.sh/hook: post-install\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: a\n" +
				"      annotations:\n        helm.sh/resource-policy: keep\n  - apiVersion: v1\n    kind: Secret\n    metadata:\n      name: b",
		}),
		Entry("a tagged timestamp", true, map[string]string{"c/templates/a.yaml": doc("ConfigMap", "c", "spec:\n  a: !!timestamp 2024-01-02")}),
		Entry("CRLF line ends", false, map[string]string{"c/templates/a.yaml": "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: c\r\ndata:\r\n  a: |\r\n    x\r\n"}),
		Entry("a List with an item that is not an object", false, map[string]string{"c/templates/a.yaml": "apiVersion: v1\nkind: List\nitems:\n  - a"}),
		Entry("a hook weight out of range", true, map[string]string{
			"c/templates/a.yaml": doc("Job", "j", "  annotations:\n    helm.sh/hook: pre-install\n    helm.sh/hook-weight: \"10000\""),
		}),
	)

	It("leaves keys that end equal (on and \"true\") to Helm, where the value that wins is random", func() {
		files := map[string]string{"c/templates/a.yaml": doc("ConfigMap", "c", "data:\n  on: a\n  \"true\": b")}
		_, _, took := helm.CollectFilesBothWays(files, prefix, true)
		Expect(took).To(BeFalse())
	})

	It("gives what Helm gives for random numbers", func() {
		r := rand.New(rand.NewPCG(4, 2))
		var b strings.Builder
		for i := range 2000 {
			var v string
			switch r.IntN(4) {
			case 0:
				v = strconv.FormatInt(r.Int64()>>r.IntN(64), 10)
			case 1:
				v = strconv.FormatFloat(math.Float64frombits(r.Uint64()), 'g', -1, 64)
			case 2:
				v = strconv.FormatFloat(math.Round(r.NormFloat64()*math.Pow(10, float64(r.IntN(25)))), 'f', -1, 64) + ".0"
			default:
				v = strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(50)-25)), 'e', r.IntN(17), 64)
			}
			fmt.Fprintf(&b, "  v%d: %s\n", i, v)
		}
		files := map[string]string{"c/templates/a.yaml": doc("ConfigMap", "numbers", "spec:\n"+b.String())}
		fast, viaHelm, took := helm.CollectFilesBothWays(files, prefix, true)
		expectSameWays(fast, viaHelm)
		Expect(took).To(BeTrue())
	})

	It("splits files into documents as releaseutil.SplitManifests does", func() {
		r := rand.New(rand.NewPCG(7, 11))
		pieces := []string{"-", "---", "\n", " ", "\t", "\r", "\f", "\v", "a", "#", "\n---", "---\n", "\u00a0", "\u0085"}
		for range 20000 {
			var b strings.Builder
			for range r.IntN(20) {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			s := b.String()
			expected := releaseutil.SplitManifests(s)
			keys := make([]string, 0, len(expected))
			for k := range expected {
				keys = append(keys, k)
			}
			slices.SortFunc(keys, func(a, b string) int {
				x, _ := strconv.Atoi(strings.TrimPrefix(a, "manifest-"))
				y, _ := strconv.Atoi(strings.TrimPrefix(b, "manifest-"))
				return x - y
			})
			docs := make([]string, 0, len(keys))
			for _, k := range keys {
				docs = append(docs, expected[k])
			}
			Expect(append([]string{}, helm.SplitManifests(s)...)).To(Equal(docs), "%q", s)
		}
	})
})
