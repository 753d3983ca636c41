package robustness_test

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/plant"
	"github.com/wavekit-dev/wavekit/internal/testing/invariants"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// plantBudget bounds how long the soak may take to report a planted bug.
const plantBudget = 3 * time.Minute

// The checker can fail: an operator built with -tags wavekit_plant carries
// a known bug (WAVEKIT_PLANT names it), and the soak, on a fixed seed and
// without faults (none is needed to show these bugs), reports it.
var _ = Describe("the soak on an operator with a planted bug", Label("plant"), Ordered, ContinueOnFailure, func() {
	var planted string

	BeforeAll(func() {
		var err error
		planted, err = operatortest.BuildOperatorWithTags(testcluster.ModuleRoot(), GinkgoT().TempDir(), plant.BuildTag)
		Expect(err).NotTo(HaveOccurred())
	})

	DescribeTable("reports the bug",
		func(bug plant.Bug, invariant string, seed int64, kinds ...string) {
			name := strings.ReplaceAll(string(bug), "-", "")
			r := startRun(runOptions{ns: "plant-" + string(bug), operator: fmt.Sprintf("%.20s.wavekit.dev", name), binary: planted,
				environ: []string{plant.EnvVar + "=" + string(bug)}, seed: seed, replicasPerShard: 1, sources: kinds})
			found := r.soak(plantBudget, invariant)
			GinkgoWriter.Printf("planted %s, %s: %d violations\n", bug, seedText(seed), len(found))
			for _, v := range found {
				GinkgoWriter.Printf("  %s\n", v)
			}
			Expect(found).To(ContainElement(HaveField("Invariant", invariant)),
				"the soak did not report the planted bug %s within %s\n%s", bug, plantBudget, r.trace())
			AddReportEntry("planted "+string(bug), firstOf(found, invariant).String())
		},
		Entry("a run-once object judged by its name: the next hook starts before this one succeeded",
			plant.RunOnceByName, "hooks", int64(1), sourceHooks),
		Entry("objects created before the inventory lists them",
			plant.SkipWriteAhead, "write-ahead", int64(1), sourceWaves, sourceHooks, sourceKust),
		Entry("a wave written while the one before it is not ready",
			plant.IgnoreWaveReadiness, "waves", int64(1), sourceWaves, sourceHooks),
	)
})

func firstOf(found []invariants.Violation, invariant string) invariants.Violation {
	for _, v := range found {
		if v.Invariant == invariant {
			return v
		}
	}
	return invariants.Violation{}
}
