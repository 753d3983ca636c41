package template_test

import (
	"context"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/generator/template"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// strictSchema allows replicas (an integer) and image.tag, nothing else.
const strictSchema = `{
  "$schema": "https://json-schema.org/draft-07/schema#",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "replicas": {"type": "integer", "minimum": 1},
    "image": {"type": "object", "additionalProperties": false, "properties": {"tag": {"type": "string"}}}
  }
}`

const schemaTemplate = `apiVersion: v1
kind: ConfigMap
metadata: {name: {{ .Name }}}
data:
  replicas: {{ .Values.replicas | default 1 | quote }}
`

func schemaSource(schema string) fstest.MapFS {
	return fstest.MapFS{
		"configmap.yaml":     {Data: []byte(schemaTemplate)},
		"values.schema.json": {Data: []byte(schema)},
	}
}

var _ = Describe("values.schema.json", func() {
	ctx := context.Background()

	It("refuses a key the schema does not allow, with its path, and renders nothing", func() {
		g, err := template.NewGenerator(schemaSource(strictSchema))
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(ctx, "shop", "web", manifests.Values{"replicas": 2, "image": map[string]any{"tagg": "v2"}, "replicass": 3})
		Expect(err).To(MatchError("values don't meet the specifications of the schema in values.schema.json:\n" +
			"- at '': additional properties 'replicass' not allowed\n" +
			"- at '/image': additional properties 'tagg' not allowed"))
		Expect(objects).To(BeEmpty())
	})

	It("refuses a value of the wrong type", func() {
		g, err := template.NewGenerator(schemaSource(strictSchema))
		Expect(err).NotTo(HaveOccurred())
		_, err = g.Generate(ctx, "shop", "web", manifests.Values{"replicas": "two"})
		Expect(err).To(MatchError(ContainSubstring("- at '/replicas': got string, want integer")))
	})

	It("renders values that meet the schema, and no values at all", func() {
		g, err := template.NewGenerator(schemaSource(strictSchema))
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(ctx, "shop", "web", manifests.Values{"replicas": 2, "image": map[string]any{"tag": "v2"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(objects).To(HaveLen(1))
		_, err = g.Generate(ctx, "shop", "web", nil)
		Expect(err).NotTo(HaveOccurred())
	})

	It("refuses a schema file that is not JSON or not a schema when the source is read", func() {
		_, err := template.NewGenerator(schemaSource(`{"type": `))
		Expect(err).To(MatchError("values.schema.json: not valid JSON"))
		_, err = template.NewGenerator(schemaSource(`{"type": "integr"}`))
		Expect(err).To(MatchError(HavePrefix("values.schema.json: not a JSON schema Helm can use: ")))
	})
})
