package writes

import (
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("the write-loop guard", func() {
	var (
		now   time.Time
		loops *Loops
		key   = manifests.ObjectKey{Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "web"}
		paths = []string{"/metadata/labels/tier"}
	)
	clock := func() time.Time { return now }
	correct := func(digest string) error {
		if err := loops.Admit(key, digest, paths); err != nil {
			return err
		}
		loops.Corrected(key, digest)
		now = now.Add(time.Second)
		return nil
	}
	BeforeEach(func() {
		now = time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	})

	It("pauses an object corrected 5 times within a minute at one render, naming the fields", func() {
		loops = NewLoops(LoopOptions{}, clock)
		for range DefaultWrites {
			Expect(correct("d1")).To(Succeed())
		}
		var loop *LoopError
		Expect(errors.As(correct("d1"), &loop)).To(BeTrue(), "the sixth correction")
		Expect(loop.RetryAt).To(Equal(now.Add(DefaultBackoff)))
		Expect(loop.Paths).To(Equal(paths))
		Expect(loop.Error()).To(ContainSubstring("/metadata/labels/tier"))
		Expect(correct("d1")).To(HaveOccurred(), "still paused")
		Expect(correct("d2")).To(Succeed(), "a new render starts anew")
	})

	It("doubles the pause each time the loop comes back, up to 10 minutes", func() {
		loops = NewLoops(LoopOptions{Writes: 1, Backoff: time.Minute}, clock)
		for _, want := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 10 * time.Minute} {
			Expect(correct("d1")).To(Succeed(), "the first correction after a pause")
			var loop *LoopError
			Expect(errors.As(loops.Admit(key, "d1", paths), &loop)).To(BeTrue(), "the second correction")
			Expect(loop.RetryAt.Sub(now)).To(Equal(want))
			now = loop.RetryAt
		}
	})
})
