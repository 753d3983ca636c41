package demo_test

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/demo"
)

// make demo is one of the two commands the README promises; this runs it
// as make demo does (plain lines: out is not a terminal), so CI fails when
// a step no longer behaves as the demo says.
var _ = Describe("the demo", Label("cluster"), func() {
	It("runs every step on the real controllers and says nothing is played", func(ctx SpecContext) {
		var out bytes.Buffer
		Expect(demo.Run(ctx, &out, 0)).To(Succeed(), out.String())

		lines := out.String()
		for _, step := range []string{
			"» Component demo/demo: Ready\n",
			"» pods the controllers made and the scheduler placed: gizmo-controller-",
			"(1.1.0) 3/3 available",
			"» checked: wave 1 (the ConfigMap) changed only once the new ReplicaSet had all 3 pods available",
			"» Component demo/demo: deletion blocked\n",
			"» checked: every object of the component is deleted\n",
			"» checked: no ReplicaSet or pod is left, and the namespace gizmo is gone",
			"» Component demo/hello: Ready with chart 1.1.0\n",
			"» Component demo/hello is gone\n",
		} {
			Expect(lines).To(ContainSubstring(step))
		}
		Expect(lines).NotTo(MatchRegexp(`(?i)\bplay|stand-in|stands in`))

		// The run tells the story of wavekit demo --help, step by step, in order;
		// with the binaries built, it builds nothing and does not say it does.
		at := 0
		for i, step := range demo.Story {
			announced := fmt.Sprintf("» step %d/%d: %s\n", i+1, len(demo.Story), step)
			Expect(lines[at:]).To(ContainSubstring(announced), "step %d, after the ones before it", i+1)
			at += strings.Index(lines[at:], announced)
		}
		Expect(lines).NotTo(ContainSubstring("building "))
		Expect(lines).To(MatchRegexp(`» local cluster binaries in \S+; starting 3 Nodes that kwok simulates\n`))
	}, SpecTimeout(5*time.Minute))
})
