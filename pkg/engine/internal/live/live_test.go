package live

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("Objects (what the applier keeps of its own writes)", func() {
	var (
		now  time.Time
		live *Objects
	)
	BeforeEach(func() {
		now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
		live = New(nil, nil, func() time.Time { return now })
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
})
