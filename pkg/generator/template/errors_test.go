package template_test

import (
	"context"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/generator/template"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("Errors", func() {
	ctx := context.Background()

	generate := func(files map[string]string, values manifests.Values, opts ...template.Option) error {
		fsys := fstest.MapFS{}
		for name, text := range files {
			fsys[name] = &fstest.MapFile{Data: []byte(text)}
		}
		g, err := template.NewGenerator(fsys, opts...)
		if err != nil {
			return err
		}
		objects, err := g.Generate(ctx, "ns", "n", values)
		Expect(objects).To(BeNil(), "objects returned with error %v", err)
		return err
	}

	It("names the file and line of a parse error", func() {
		err := generate(map[string]string{"ok.yaml": cm("ok"), "bad.yaml": "a: 1\nb: {{ .Values.x \n"}, nil)
		Expect(err).To(MatchError("parsing template bad.yaml: template: bad.yaml:3: unclosed action started at bad.yaml:2"))
	})

	It("names the file and line of an unknown function, and env is not available", func() {
		err := generate(map[string]string{"env.yaml": "a: 1\n\nb: {{ env \"HOME\" }}\n"}, nil)
		Expect(err).To(MatchError(`parsing template env.yaml: template: env.yaml:3: function "env" not defined`))
	})

	It("names the file, line, column and expression of an execution error and returns no objects", func() {
		err := generate(map[string]string{
			"a.yaml": cm("first"),
			"b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ required \"name is required\" .Values.name }}\n",
		}, nil)
		Expect(err).To(MatchError(`rendering b.yaml: template: b.yaml:4:11: executing "b.yaml" at <required "name is required" .Values.name>: error calling required: name is required`))
	})

	It("names the partial's file and line when an included template fails", func() {
		err := generate(map[string]string{
			"_helpers.tpl": "{{ define \"x\" }}\n{{ fail \"broken helper\" }}\n{{ end }}",
			"a.yaml":       "{{ include \"x\" . }}",
		}, nil)
		Expect(err).To(MatchError(`rendering a.yaml: template: a.yaml:1:3: executing "a.yaml" at <include "x" .>: error calling include: template: _helpers.tpl:2:3: executing "x" at <fail "broken helper">: error calling fail: broken helper`))
	})

	It("makes a missing key an error with WithMissingKeyError", func() {
		err := generate(map[string]string{"a.yaml": "a: {{ .Values.nope }}\n"}, nil, template.WithMissingKeyError())
		Expect(err).To(MatchError(`rendering a.yaml: template: a.yaml:1:13: executing "a.yaml" at <.Values.nope>: map has no entry for key "nope"`))
	})

	It("fails on a field of a missing key, as Helm does", func() {
		err := generate(map[string]string{"a.yaml": "a: {{ .Values.missing.field }}\n"}, nil)
		Expect(err).To(MatchError(`rendering a.yaml: template: a.yaml:1:13: executing "a.yaml" at <.Values.missing.field>: nil pointer evaluating interface {}.field`))
	})

	It("names the file and document of output that is not valid YAML", func() {
		err := generate(map[string]string{"a.yaml": cm("one") + "---\n" + "kind: [unclosed\n"}, nil)
		Expect(err).To(MatchError(ContainSubstring("a.yaml: document 2: not valid YAML: ")))
	})

	It("stops a template that includes itself", func() {
		err := generate(map[string]string{"_loop.tpl": `{{ define "loop" }}{{ include "loop" . }}{{ end }}`, "a.yaml": `{{ include "loop" . }}`}, nil)
		Expect(err).To(MatchError(ContainSubstring("templates nest deeper than 1000 levels")))
	})

	It("fails on a directory that does not exist", func() {
		_, err := template.NewGeneratorFromDir("testdata/nope")
		Expect(err).To(MatchError(ContainSubstring("templates in testdata/nope: listing template files: ")))
	})
})
