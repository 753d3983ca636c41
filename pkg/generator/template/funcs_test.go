package template_test

import (
	"context"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/generator/template"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("Funcs", func() {
	ctx := context.Background()

	// render renders text as the data of a ConfigMap key and returns its value.
	render := func(text string, values manifests.Values) (string, error) {
		fsys := fstest.MapFS{
			"_partials.tpl": {Data: []byte(`{{ define "greet" }}hello {{ . }}{{ end }}`)},
			"a.yaml":        {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  out: " + text + "\n")},
		}
		g, err := template.NewGenerator(fsys)
		if err != nil {
			return "", err
		}
		objects, err := g.Generate(ctx, "ns", "n", values)
		if err != nil {
			return "", err
		}
		return contents(objects)[0]["data"].(map[string]any)["out"].(string), nil
	}

	DescribeTable("renders",
		func(text string, values manifests.Values, want string) {
			Expect(render(text, values)).To(Equal(want))
		},
		Entry("include", `'{{ include "greet" "you" | upper }}'`, nil, "HELLO YOU"),
		Entry("tpl with the values", `'{{ tpl .Values.t . }}'`, manifests.Values{"t": "{{ .Values.a }}-{{ .Name }}", "a": "x"}, "x-n"),
		Entry("tpl using a partial", `'{{ tpl "{{ include \"greet\" .Name }}" . }}'`, nil, "hello n"),
		Entry("toYaml of a map", `{{ toYaml .Values.m | toJson }}`, manifests.Values{"m": map[string]any{"b": 1, "a": "x"}}, "a: x\nb: 1"),
		Entry("fromYaml of a map", `'{{ (fromYaml "a: {b: 3}").a.b }}'`, nil, "3"),
		Entry("fromYaml of a list", `'{{ index (fromYaml "[x, z]") 1 }}'`, nil, "z"),
		Entry("toJson", `'{{ toJson .Values.m }}'`, manifests.Values{"m": map[string]any{"b": []any{1, "2"}}}, `{"b":[1,"2"]}`),
		Entry("fromJson", `'{{ (fromJson "{\"a\": [5]}").a | first }}'`, nil, "5"),
		Entry("required with a value", `'{{ required "x" .Values.x }}'`, manifests.Values{"x": "set"}, "set"),
		Entry("a missing key as empty", `'[{{ .Values.a }}]'`, nil, "[]"),
		Entry("a sprig function", `'{{ list 3 1 2 | sortAlpha | join "," }}'`, nil, "1,2,3"),
		Entry("lookup without a client", `'{{ lookup "v1" "ConfigMap" "ns" "x" | len }}'`, nil, "0"),
	)

	DescribeTable("fails",
		func(text string, values manifests.Values, want string) {
			_, err := render(text, values)
			Expect(err).To(MatchError(want))
		},
		Entry("required with an empty string", `'{{ required "x is required" .Values.x }}'`, manifests.Values{"x": ""},
			`rendering a.yaml: template: a.yaml:6:11: executing "a.yaml" at <required "x is required" .Values.x>: error calling required: x is required`),
		Entry("fromYaml of bad YAML", `'{{ fromYaml "a: [" }}'`, nil,
			`rendering a.yaml: template: a.yaml:6:11: executing "a.yaml" at <fromYaml "a: [">: error calling fromYaml: error converting YAML to JSON: yaml: line 1: did not find expected node content`),
		Entry("fromJson of bad JSON", `'{{ fromJson "{" }}'`, nil,
			`rendering a.yaml: template: a.yaml:6:11: executing "a.yaml" at <fromJson "{">: error calling fromJson: unexpected end of JSON input`),
		Entry("tpl with a parse error", `'{{ tpl "{{ .Name" . }}'`, nil,
			`rendering a.yaml: template: a.yaml:6:11: executing "a.yaml" at <tpl "{{ .Name" .>: error calling tpl: template: tpl:1: unclosed action`),
		Entry("lookup with a bad apiVersion", `'{{ lookup "a/b/c" "X" "" "" }}'`, nil,
			`rendering a.yaml: template: a.yaml:6:11: executing "a.yaml" at <lookup "a/b/c" "X" "" "">: error calling lookup: lookup: unexpected GroupVersion string: a/b/c`),
	)
})
