package template_test

import (
	"context"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/generator/template"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("lookup against an API server", Ordered, func() {
	var env *testcluster.Env
	var g *template.Generator

	BeforeAll(func() {
		var err error
		env, err = testcluster.Start(testcluster.Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(env.Stop)

		ctx := context.Background()
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lookup"}})).To(Succeed())
		for _, name := range []string{"settings", "other"} {
			Expect(env.Client.Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Namespace: "lookup", Name: name},
				Data:       map[string]string{"color": name + "-blue"},
			})).To(Succeed())
		}

		g, err = template.NewGenerator(fstest.MapFS{"out.yaml": {Data: []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: out
data:
  color: {{ (lookup "v1" "ConfigMap" "lookup" "settings").data.color | quote }}
  missing: {{ lookup "v1" "ConfigMap" "lookup" "nope" | len | quote }}
  names: {{ range (lookup "v1" "ConfigMap" "lookup" "").items }}{{ .metadata.name }},{{ end }}
  namespace: {{ (lookup "v1" "Namespace" "" "lookup").metadata.name }}
  unknownKind: {{ lookup "example.com/v1" "Nope" "" "x" | len | quote }}
`)}})
		Expect(err).NotTo(HaveOccurred())
	})

	It("reads, lists, and returns an empty map for missing objects and kinds", func() {
		ctx := manifests.WithClient(context.Background(), env.Client)
		objects, err := g.Generate(ctx, "lookup", "x", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(contents(objects)[0]["data"]).To(Equal(map[string]any{
			"color":       "settings-blue",
			"missing":     "0",
			"names":       "other,settings,",
			"namespace":   "lookup",
			"unknownKind": "0",
		}))
	})

	It("fails with the object and the cause when the read fails", func() {
		ctx, cancel := context.WithCancel(manifests.WithClient(context.Background(), env.Client))
		cancel()
		objects, err := g.Generate(ctx, "lookup", "x", nil)
		Expect(objects).To(BeNil())
		Expect(err).To(MatchError(ContainSubstring(`rendering out.yaml: template: out.yaml:6:13: executing "out.yaml" at <lookup "v1" "ConfigMap" "lookup" "settings">: error calling lookup: lookup v1 ConfigMap "settings" in namespace "lookup": `)))
		Expect(err).To(MatchError(context.Canceled))
	})
})
