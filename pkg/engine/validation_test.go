package engine_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

var _ = Describe("validation before any write", func() {
	var (
		ctx context.Context
		h   *harness
		ns  string
	)
	BeforeEach(func() {
		ctx, ns, h = newSpec("validation")
		h.counter.Reset()
	})

	DescribeTable("rejects the whole run and writes nothing",
		func(bad func(ns string) client.Object, message string) {
			good := configMap(ns, "good", map[string]string{"a": "b"})
			_, err := h.apply(ctx, good, bad(ns))
			Expect(err).To(MatchError(ContainSubstring(strings.ReplaceAll(message, "%NS%", ns))))
			Expect(h.counter.Writes()).To(BeZero(), h.counter.String())
			Expect(h.saves).To(BeZero())
			Expect(getConfigMap(ctx, ns, "good")).To(BeNil())
		},
		Entry("missing kind", func(ns string) client.Object {
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "metadata": map[string]any{"name": "x"}}}
			return u
		}, `kind is missing`),
		Entry("missing name", func(ns string) client.Object {
			return configMap(ns, "", nil)
		}, "metadata.name is missing"),
		Entry("generateName", func(ns string) client.Object {
			cm := configMap(ns, "", nil)
			cm.GenerateName = "gen-"
			return cm
		}, `generateName "gen-" is not supported`),
		Entry("duplicate object", func(ns string) client.Object {
			return configMap(ns, "good", map[string]string{"other": "data"})
		}, "ConfigMap "+"%NS%"+"/good: rendered more than once"),
		Entry("invalid apply order", func(ns string) client.Object {
			return configMap(ns, "bad", nil, "apply-order", "40000")
		}, `ConfigMap %NS%/bad: annotation test.wavekit.dev/apply-order has invalid value "40000" (allowed: an integer from -32768 to 32767)`),
		Entry("invalid update policy", func(ns string) client.Object {
			return configMap(ns, "bad", nil, "update-policy", "merge")
		}, `annotation test.wavekit.dev/update-policy has invalid value "merge" (allowed: default, replace, ssa-merge, ssa-override, recreate)`),
		Entry("invalid delete policy", func(ns string) client.Object {
			return configMap(ns, "bad", nil, "delete-policy", "keep")
		}, `annotation test.wavekit.dev/delete-policy has invalid value "keep" (allowed: default, delete, orphan, orphan-on-apply, orphan-on-delete)`),
		Entry("invalid delete hook: not dropped as a hook, refused", func(ns string) client.Object {
			return configMap(ns, "bad", nil, "delete-hook", "pre-install")
		}, `annotation test.wavekit.dev/delete-hook has invalid value "pre-install" (allowed: pre-delete, post-delete)`),
		Entry("invalid adoption policy", func(ns string) client.Object {
			return configMap(ns, "bad", nil, "adoption-policy", "sometimes")
		}, `annotation test.wavekit.dev/adoption-policy has invalid value "sometimes" (allowed: never, if-unowned, always)`),
		Entry("invalid reconcile policy", func(ns string) client.Object {
			return configMap(ns, "bad", nil, "reconcile-policy", "always")
		}, `annotation test.wavekit.dev/reconcile-policy has invalid value "always"`),
		Entry("invalid status hint", func(ns string) client.Object {
			return configMap(ns, "bad", nil, "status-hint", "ready")
		}, `annotation test.wavekit.dev/status-hint has invalid value "ready"`),
		Entry("invalid reapply interval", func(ns string) client.Object {
			return configMap(ns, "bad", nil, "reapply-interval", "soon")
		}, `annotation test.wavekit.dev/reapply-interval has invalid value "soon"`),
		Entry("unknown kind without its CRD", func(ns string) client.Object {
			return gadget("unknown.wavekit.dev", ns, "g")
		}, "the API server does not serve unknown.wavekit.dev/v1, Kind=Gadget and no CRD among the manifests defines it"),
		Entry("purge order on a namespace", func(ns string) client.Object {
			n := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: ns + "-purged", Annotations: annotations("purge-order", "1")}}
			return n
		}, "annotation test.wavekit.dev/purge-order is not allowed on a Namespace"),
	)

	It("rejects an instance ordered before the CRD that serves it", func() {
		group := ns + ".order.wavekit.dev"
		_, err := h.apply(ctx, gadgetCRD(group, "apply-order", "1"), gadget(group, ns, "early"))
		Expect(err).To(MatchError(ContainSubstring("Gadget " + ns + "/early: apply order 0 is before the order 1 of the definition that serves its type")))
		Expect(h.counter.Writes()).To(BeZero())
	})
})

func optionsDefault() engine.Options { return engine.Options{} }
