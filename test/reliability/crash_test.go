package reliability_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The operator binary is killed (SIGKILL) at many moments while it applies a
// 5-wave, 100-object component and while it deletes it, and restarted each
// time. Moments are chosen by progress, not by the clock: the test kills when
// the number of owned objects reaches a threshold drawn from a random source
// seeded with the Ginkgo seed, and it decides when each wave ends by playing
// the controller of the wave's Widget. After every kill every owned object is
// in the inventory; at the end the component is Ready (or gone), and no
// object was created, changed or deleted more than once.
var _ = Describe("crash anywhere", Ordered, func() {
	const (
		ns          = "crash"
		waves       = 5
		perWave     = 20
		applyKills  = 4 // per wave
		deleteKills = 2 // per delete wave
	)
	ctx := context.Background()
	var (
		op      *binaryOperator
		history *objectHistory
		rng     *rand.Rand
		c       = newComponent(ns, "app", "crash", nil)
	)

	BeforeAll(func() {
		newNamespace(ctx, ns)
		op = newBinaryOperator()
		history = watchHistory(ctx, ns, crashOperator)
		rng = rand.New(rand.NewPCG(uint64(GinkgoRandomSeed()), 8))
	})

	// killWhen starts the operator, kills it once the owned objects number
	// satisfies reached, and checks that the inventory covers them.
	killWhen := func(reached func(int) bool) {
		GinkgoHelper()
		op.start()
		eventually(func() int { return len(ownedIn(ctx, ns)) }).Should(Satisfy(reached))
		op.kill()
		expectInventoryCovers(ctx, c)
	}

	It("applies the component until Ready although killed 20 times on the way", func() {
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		for wave := range waves {
			for _, threshold := range thresholds(rng, applyKills, wave*perWave+1, (wave+1)*perWave) {
				killWhen(func(n int) bool { return n >= threshold })
			}
			op.start()
			setWidgetReady(ctx, ns, widgetName(wave))
		}
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("True/Ready: every object is applied and ready"))
		Expect(op.kills).To(BeNumerically(">=", 20))
		GinkgoWriter.Printf("killed %d times while applying\n", op.kills)

		objects := ownedIn(ctx, ns)
		Expect(objects).To(HaveLen(waves * perWave))
		Expect(inventoryKeys(ctx, c)).To(HaveLen(waves * perWave))
		expectInventoryCovers(ctx, c)
		Expect(history.objects()).To(Equal(waves * (perWave - 1)))
		Expect(history.unexpected(map[watch.EventType]int{watch.Added: 1})).To(BeEmpty(), "objects written more than once")
		for wave := range waves {
			Expect(getWidget(ctx, ns, widgetName(wave)).GetGeneration()).To(Equal(int64(1)), "widget %d rewritten", wave)
		}
	})

	It("writes nothing when restarted once Ready", func() {
		op.kill()
		before, component := ownedIn(ctx, ns), getComponent(ctx, c).ResourceVersion
		op.start("--zap-log-level=debug")
		Eventually(op.session.Err).WithTimeout(time.Minute).Should(gbytes.Say(`"msg":"reconciled"`))
		Consistently(func() map[manifests.ObjectKey]objectVersion { return ownedIn(ctx, ns) }).
			WithTimeout(2 * time.Second).WithPolling(200 * time.Millisecond).Should(Equal(before))
		Expect(getComponent(ctx, c).ResourceVersion).To(Equal(component), "the status was written")
		op.kill()
	})

	It("deletes the component completely although killed 10 times on the way", func() {
		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		left := waves * perWave
		for step := range waves {
			// Within a delete wave the Services and the Widget go first; the
			// Widget stays until the test removes its finalizer.
			gate := left - 5
			for _, threshold := range thresholds(rng, deleteKills, gate, left-1) {
				killWhen(func(n int) bool { return n <= threshold })
			}
			op.start()
			releaseWidget(ctx, ns, widgetName(waves-1-step))
			left -= perWave
		}
		op.start()
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("gone"))
		Expect(op.kills).To(BeNumerically(">=", 30))
		GinkgoWriter.Printf("killed %d times in all\n", op.kills)
		Expect(ownedIn(ctx, ns)).To(BeEmpty())
		Expect(history.unexpected(map[watch.EventType]int{watch.Added: 1, watch.Deleted: 1})).To(BeEmpty(),
			"objects written or deleted more than once")
	})
})

// thresholds draws n object counts from [low, high], in ascending order.
func thresholds(rng *rand.Rand, n, low, high int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = low + rng.IntN(high-low+1)
	}
	slices.Sort(out)
	return out
}

// expectInventoryCovers asserts that every object with the crash operator's
// owner label in the component's namespace is in its inventory: none is
// untracked. Other specs' components of the same operator live in other
// namespaces and may still be there, in whichever order the specs ran.
func expectInventoryCovers(ctx context.Context, c *v1alpha1.Component) {
	GinkgoHelper()
	expectInventoryHas(ctx, c, ownedIn(ctx, c.Namespace))
}

// expectInventoryHas asserts that every one of objects is in the inventory.
func expectInventoryHas(ctx context.Context, c *v1alpha1.Component, objects map[manifests.ObjectKey]objectVersion) {
	GinkgoHelper()
	inventory := inventoryKeys(ctx, c)
	for key := range objects {
		Expect(inventory).To(HaveKey(key), "%s is owned but not in the inventory", key)
	}
}
