package notify

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the limiter", func() {
	var (
		now time.Time
		l   *limiter
	)
	clock := func() time.Time { return now }
	BeforeEach(func() {
		now = time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
		l = newLimiter(clock, 5*time.Minute, 3, 10*time.Second)
	})

	It("lets an event of one key reach a receiver once per window", func() {
		Expect(l.admit("slack", "k")).To(BeEmpty())
		now = now.Add(4*time.Minute + 59*time.Second)
		Expect(l.admit("slack", "k")).To(Equal(reasonDuplicate))
		Expect(l.admit("teams", "k")).To(BeEmpty(), "another receiver has its own window")
		now = now.Add(time.Second)
		Expect(l.admit("slack", "k")).To(BeEmpty(), "the window is over")
	})

	It("gives a flood of distinct events a bounded number of deliveries: the burst, then one per refill", func() {
		admitted := 0
		for i := range 100 {
			if l.admit("slack", fmt.Sprintf("failure %d", i)) == "" {
				admitted++
			}
		}
		Expect(admitted).To(Equal(3))
		Expect(l.admit("slack", "one more")).To(Equal(reasonRateLimited))
		Expect(l.admit("teams", "one more")).To(BeEmpty(), "another receiver has its own bucket")

		now = now.Add(10 * time.Second)
		Expect(l.admit("slack", "one more")).To(BeEmpty(), "a refill gives one token")
		Expect(l.admit("slack", "and another")).To(Equal(reasonRateLimited))
	})

	It("takes no token for a duplicate, and lets a rate-limited event go once there is a token", func() {
		Expect(l.admit("slack", "k")).To(BeEmpty())
		for range 10 {
			Expect(l.admit("slack", "k")).To(Equal(reasonDuplicate))
		}
		Expect(l.admit("slack", "a")).To(BeEmpty())
		Expect(l.admit("slack", "b")).To(BeEmpty())
		Expect(l.admit("slack", "c")).To(Equal(reasonRateLimited))
		now = now.Add(10 * time.Second)
		Expect(l.admit("slack", "c")).To(BeEmpty(), "a held-back event was never sent, so it is no duplicate")
	})

	It("does not limit the rate with a burst of 0", func() {
		l = newLimiter(clock, time.Minute, 0, 0)
		for i := range 1000 {
			Expect(l.admit("slack", fmt.Sprint(i))).To(BeEmpty())
		}
	})

	It("forgets expired windows and full buckets once it remembers too much", func() {
		for i := range maxRemembered {
			Expect(l.admit(fmt.Sprint("r", i), "k")).To(BeEmpty())
		}
		now = now.Add(6 * time.Minute)
		Expect(l.admit("another", "k")).To(BeEmpty())
		Expect(len(l.sent)).To(Equal(1))
		Expect(len(l.buckets)).To(BeNumerically("<=", 2))
	})
})
