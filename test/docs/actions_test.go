package docs_test

import (
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// engineActions are every Action the engine has.
var engineActions = []engine.Action{
	engine.ActionCreate, engine.ActionUpdate, engine.ActionUnchanged, engine.ActionReplace, engine.ActionDelete,
	engine.ActionOrphan, engine.ActionLeave, engine.ActionApply, engine.ActionReady, engine.ActionPurge,
	engine.ActionPrune, engine.ActionRunHook, engine.ActionRunTest,
}

// quotedActions finds the list of a plan step's actions in
// docs/architecture-engine.md: "step has an action (`a`, `b`, …)".
var quotedActions = regexp.MustCompile("step has an action \\(([^)]*)\\)")

var _ = Describe("the plan's actions in docs/architecture-engine.md", func() {
	It("are the engine's own names", func() {
		list := quotedActions.FindStringSubmatch(strings.Join(strings.Fields(readPage("docs/architecture-engine.md")), " "))
		Expect(list).To(HaveLen(2), "docs/architecture-engine.md no longer lists a step's actions as this test expects")
		names := regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(list[1], -1)
		Expect(names).NotTo(BeEmpty())
		for _, name := range names {
			Expect(engineActions).To(ContainElement(engine.Action(name[1])), "docs/architecture-engine.md names the action %q, which the engine does not have", name[1])
		}
	})
})
