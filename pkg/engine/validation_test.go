package engine_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/invalidmanifests"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
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

	// refusedWithoutWrites applies objects and expects message and no write.
	refusedWithoutWrites := func(objects []client.Object, message string) {
		GinkgoHelper()
		_, err := h.apply(ctx, objects)
		Expect(err).To(MatchError(ContainSubstring(message)))
		var userErr *manifests.UserError
		Expect(errors.As(err, &userErr)).To(BeTrue(), "a user error: retrying unchanged is pointless")
		Expect(h.counter.Writes()).To(BeZero(), h.counter.String())
		Expect(h.saves).To(BeZero())
		Expect(getConfigMap(ctx, ns, "good")).To(BeNil())
	}

	// The table is shared with the CLI's tests: wavekit render refuses
	// every case with the message apply gives.
	entries := []TableEntry{}
	for _, c := range invalidmanifests.Cases {
		entries = append(entries, Entry(c.Name, c))
	}
	DescribeTable("rejects the whole run and writes nothing",
		func(c invalidmanifests.Case) {
			objects, err := manifests.DecodeObjects(c.Name, []byte(c.YAML(prefix, ns)))
			Expect(err).NotTo(HaveOccurred())
			refusedWithoutWrites(toClientObjects(objects), "invalid manifests: "+c.Want(prefix, ns))
		},
		entries,
	)

	It("rejects an object without kind, which no generator's decoder lets through", func() {
		noKind := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "metadata": map[string]any{"name": "x"}}}
		refusedWithoutWrites([]client.Object{configMap(ns, "good", map[string]string{"a": "b"}), noKind}, "kind is missing")
	})
})

func toClientObjects(objects []*unstructured.Unstructured) []client.Object {
	out := make([]client.Object, len(objects))
	for i, o := range objects {
		out[i] = o
	}
	return out
}

func optionsDefault() engine.Options { return engine.Options{} }
