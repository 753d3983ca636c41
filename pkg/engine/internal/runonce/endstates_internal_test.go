package runonce

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("EndStates (the last state the cache saw of objects that run to completion)", func() {
	var (
		now       time.Time
		ends      *EndStates
		transform func(any) (any, error)
	)
	BeforeEach(func() {
		now = time.Unix(1000, 0)
		ends = NewEndStates("wavekit.dev", func() time.Time { return now })
		transform = ends.Observing(func(obj any) (any, error) { return obj, nil })
	})
	jobKey := manifests.ObjectKey{Group: "batch", Kind: "Job", Namespace: "ns", Name: "a"}

	It("keeps the conditions of Jobs, without changing what it passes on, and forgets one not seen for EndStateMemory", func() {
		for _, seen := range []*unstructured.Unstructured{job("a"), job("a", "Complete", "True")} {
			Expect(transform(seen)).To(BeIdenticalTo(seen))
		}
		phase, _ := EndOf(ends.LastSeen(jobKey))
		Expect(phase).To(Equal(manifests.PhaseCompleted))

		now = now.Add(EndStateMemory + time.Second)
		Expect(ends.LastSeen(jobKey)).To(BeNil())
		Expect((*EndStates)(nil).LastSeen(jobKey)).To(BeNil(), "a nil EndStates remembers nothing")
	})

	It("keeps a test of any kind whole but its managedFields, and nothing of other objects", func() {
		test := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "test.wavekit.dev/v1", "kind": "Widget",
			"spec": map[string]any{"size": int64(1)}, "status": map[string]any{"phase": "Done"}}}
		test.SetNamespace("ns")
		test.SetName("t")
		test.SetAnnotations(map[string]string{"wavekit.dev/test-hook": "keep"})
		test.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "wavekit"}})
		other := test.DeepCopy()
		other.SetName("plain")
		other.SetAnnotations(nil)
		_, _ = transform(test)
		_, _ = transform(other)

		kept := ends.LastSeen(manifests.ObjectKey{Group: "test.wavekit.dev", Kind: "Widget", Namespace: "ns", Name: "t"})
		Expect(kept).NotTo(BeNil())
		Expect(kept.GetManagedFields()).To(BeEmpty())
		Expect(test.GetManagedFields()).To(HaveLen(1), "the object passed on is not changed")
		want := test.DeepCopy()
		want.SetManagedFields(nil)
		Expect(kept.Object).To(Equal(want.Object))
		Expect(ends.LastSeen(manifests.ObjectKey{Group: "test.wavekit.dev", Kind: "Widget", Namespace: "ns", Name: "plain"})).To(BeNil())
	})
})
