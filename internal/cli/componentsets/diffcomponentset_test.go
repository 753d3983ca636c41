package componentsets_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

// The previews themselves run against several clusters in test/fleet.
var _ = Describe("diff componentset", func() {
	DescribeTable("refuses bad input with exit code 2 and says why", clitest.RefusesDiffInput("componentset"),
		Entry("no set named", nil, "", "diff componentset needs NAMESPACE/NAME or -f FILE (see wavekit diff componentset --help)"),
		Entry("both a name and a file", []string{"x/y"}, "kind: ComponentSet", "diff componentset takes NAMESPACE/NAME or -f FILE, not both"),
		Entry("a set that does not exist", []string{"nowhere/missing"}, "", "ComponentSet nowhere/missing not found"),
		Entry("a file of another kind", nil, "apiVersion: wavekit.dev/v1alpha1\nkind: Component\nmetadata:\n  name: x\n",
			"FILE: holds wavekit.dev/v1alpha1 Component, not a ComponentSet of wavekit.dev/v1alpha1"),
	)
})
