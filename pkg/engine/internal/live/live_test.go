package live

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("Objects (what the applier keeps of its own writes)", func() {
	var (
		now  time.Time
		live *Objects
	)
	BeforeEach(func() {
		now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
		live = New(nil, nil, func() time.Time { return now }, nil)
	})
	key := func(name string) manifests.ObjectKey {
		return manifests.ObjectKey{Kind: "ConfigMap", Namespace: "n", Name: name}
	}

	It("drops a tombstone when the cache sees that object go, not another of the same name", func() {
		live.Deleted(key("a"), "uid-1")
		live.Gone(key("a"), "uid-2")
		Expect(live.DeletedHere(key("a"))).To(BeTrue())
		live.Gone(key("a"), "uid-1")
		Expect(live.DeletedHere(key("a"))).To(BeFalse())
	})

	It("drops copies and tombstones of objects never read again once they are older than the ttl", func() {
		live.Deleted(key("deleted"), "uid-1")
		live.Remember(key("written"), &unstructured.Unstructured{Object: map[string]any{}})
		now = now.Add(Memory / 2)
		live.Deleted(key("recent"), "uid-2")
		Expect(live.tombstones.Len()).To(Equal(2), "no sweep before a ttl has passed")

		now = now.Add(Memory/2 + time.Second)
		Expect(live.DeletedHere(key("deleted"))).To(BeFalse(), "a tombstone older than the ttl serves no more")
		live.Deleted(key("latest"), "uid-3")
		live.Remember(key("rewritten"), &unstructured.Unstructured{Object: map[string]any{}})
		Expect(live.DeletedHere(key("recent"))).To(BeTrue())
		Expect(live.DeletedHere(key("latest"))).To(BeTrue())
		Expect(live.tombstones.Len()).To(Equal(2), "the sweep dropped the tombstone older than the ttl")
		Expect(live.remembers(key("rewritten"))).To(BeTrue())
		Expect(live.written.Len()).To(Equal(1), "the sweep dropped the write older than the ttl")
	})

	It("serves its own write while the cache lags, also after the API server confirmed it", func() {
		written := &unstructured.Unstructured{Object: map[string]any{}}
		written.SetName("a")
		written.SetResourceVersion("5")
		cache, server := objectsByName{}, objectsByName{"a": written.DeepCopy()}
		live = New(cache, server, func() time.Time { return now }, nil)
		live.Remember(key("a"), written)
		gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
		for range 2 {
			got, err := live.Get(context.Background(), gvk, key("a"))
			Expect(err).NotTo(HaveOccurred())
			Expect(got).NotTo(BeNil(), "an object the applier wrote, which the cache has not seen yet, read as gone")
			Expect(got.GetResourceVersion()).To(Equal("5"))
		}
	})
})

// objectsByName reads objects by name, for a cache that lags or an API
// server that has them.
type objectsByName map[string]*unstructured.Unstructured

func (r objectsByName) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	found, ok := r[key.Name]
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, key.Name)
	}
	found.DeepCopyInto(obj.(*unstructured.Unstructured))
	return nil
}

func (r objectsByName) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return nil
}
