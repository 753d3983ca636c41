package reliability_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Bad input: a component applies a good render first, then its values make
// the render bad in one way each. The Ready condition says exactly what is
// wrong and where, and no object in the cluster changed — not even the
// valid objects whose content the bad render also changes.
var _ = Describe("bad input", func() {
	ctx := context.Background()
	bad := map[string]any{"bad": true}

	DescribeTable("reports the exact problem and changes nothing",
		func(source string, values map[string]any, message string) {
			ns := "bad-" + source
			newNamespace(ctx, ns)
			startOperator(ctx, map[string]string{source: "bad/" + source})
			c := newComponent(ns, "c", source, nil)
			Expect(env.Client.Create(ctx, c)).To(Succeed())
			eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
			before := owned(ctx, inProcess)
			Expect(before).NotTo(BeEmpty())

			changeValues(ctx, c, values)
			eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("False/Error: " + message))
			Expect(owned(ctx, inProcess)).To(Equal(before), "objects changed")
		},
		Entry("an invalid annotation value", "invalid-annotation", bad,
			`invalid manifests: ConfigMap bad-invalid-annotation/late: annotation rel.wavekit.dev/apply-order has invalid value "soon" (allowed: an integer from -32768 to 32767)`),
		Entry("a duplicate object", "duplicate", bad,
			`invalid manifests: ConfigMap bad-duplicate/twice: rendered more than once`),
		Entry("a missing kind", "missing-kind", bad,
			`rendering: objects.yaml: document 2: not a Kubernetes object named "kindless": no kind`),
		Entry("an unknown kind whose CRD is not in the manifests", "unknown-kind", bad,
			`invalid manifests: gadgets.example.com/Gadget unknown: the API server does not serve gadgets.example.com/v1, Kind=Gadget and no CRD among the manifests defines it`),
		Entry("a template error (file and line)", "template-error", bad,
			`rendering: rendering objects.yaml: template: objects.yaml:12:11: executing "objects.yaml" at <required "values.message is required" .Values.message>: error calling required: values.message is required`),
		Entry("a chart schema violation", "schema", map[string]any{"replicas": "many"},
			"rendering: helm chart schema: values don't meet the specifications of the schema(s) in the following chart(s):\nschema:\n- at '/replicas': got string, want integer\n"),
		Entry("an immutable field changed without replace-on-immutable", "immutable", bad,
			"applying ConfigMap bad-immutable/frozen: field data is immutable; set rel.wavekit.dev/update-policy: replace-on-immutable to re-create the object when this happens: ConfigMap \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is set"),
		Entry("a purge order on a Namespace", "purge-namespace", bad,
			`invalid manifests: Namespace bad-purge-namespace-extra: annotation rel.wavekit.dev/purge-order is not allowed on a Namespace`),
		Entry("a CRD instance ordered before its CRD", "crd-order", bad,
			`invalid manifests: order.example.com/Gizmo bad-crd-order/early: apply order 0 is before the order 1 of the definition that serves its type`),
	)
})
