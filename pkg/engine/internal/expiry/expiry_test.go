package expiry

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("expiring (a map whose entries last a ttl)", func() {
	const ttl = time.Minute
	var (
		now time.Time
		m   *Map[string, int]
	)
	BeforeEach(func() {
		now = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
		m = New[string, int](ttl, func() time.Time { return now })
	})
	got := func(key string) any {
		if v, ok := m.Get(key); ok {
			return v
		}
		return nil
	}

	It("returns a value for ttl after it was put, and none after", func() {
		m.Put("a", 1)
		now = now.Add(ttl)
		Expect(got("a")).To(Equal(1))
		now = now.Add(time.Second)
		Expect(got("a")).To(BeNil())
	})

	It("drops the values older than ttl when it is put to, at most once per ttl", func() {
		m.Put("old", 1)
		now = now.Add(ttl / 2)
		m.Put("recent", 2)
		now = now.Add(ttl/2 + time.Second)
		m.Put("latest", 3)
		Expect(m.entries).To(HaveLen(2))
		Expect(m.entries).NotTo(HaveKey("old"))

		now = now.Add(ttl / 2) // "recent" is older than ttl now
		m.Put("next", 4)
		Expect(m.entries).To(HaveLen(3), "no second sweep within a ttl of the first")
		Expect(got("recent")).To(BeNil())
	})

	It("drops a value on delete, and on deleteIf only when it has served", func() {
		m.Put("a", 1)
		m.Put("b", 2)
		m.Delete("a")
		m.DeleteIf("b", func(v int) bool { return v == 3 })
		Expect(got("a")).To(BeNil())
		Expect(got("b")).To(Equal(2))
		m.DeleteIf("b", func(v int) bool { return v == 2 })
		Expect(m.Len()).To(BeZero())
	})
})
