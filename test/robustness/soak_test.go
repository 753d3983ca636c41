package robustness_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/history"
	"github.com/wavekit-dev/wavekit/internal/testing/invariants"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

var _ = Describe("the soak", Label("soak"), func() {
	It("keeps every invariant through random operations and faults, and converges after each", func() {
		r := startRun(runOptions{ns: "soak", operator: "soak.wavekit.dev", binary: binary, seed: config.seed,
			replicasPerShard: 2, sources: sources, faults: true})
		start := time.Now()
		GinkgoWriter.Printf("soak for %s, %s\n", config.duration, seedText(config.seed))
		found := r.soak(config.duration, "")
		found = append(found, r.teardown()...)
		r.stats.count("recorder gaps (relists)", len(r.hist.Gaps()))
		_, spans := r.spans.received()
		r.stats.count("spans received", spans)
		AddReportEntry("soak", r.stats.report(config.seed, time.Since(start)))
		r.expectNone(found)
		Expect(spans).To(BeNumerically(">", 0), "no span reached the collector: the spans were not searched for Secret values")
	})
})

// soak runs cycles of steps, each ending in a quiet point that is checked,
// until duration is spent, or until the checker reports a violation of the
// invariant stopOn; it returns the violations found.
func (r *run) soak(duration time.Duration, stopOn string) []invariants.Violation {
	GinkgoHelper()
	start := time.Now()
	reported := map[string]bool{}
	var found []invariants.Violation
	for cycle := 1; time.Since(start) < duration; cycle++ {
		r.runCycle(cycle)
		for _, v := range r.check(cycle) {
			if !reported[v.String()] {
				reported[v.String()] = true
				found = append(found, v)
				GinkgoWriter.Printf("cycle %d: %s\n", cycle, v)
			}
		}
		GinkgoWriter.Printf("cycle %d done at %s: %d events recorded, %d violations so far\n",
			cycle, time.Since(start).Round(time.Second), r.hist.Len(), len(found))
		if stopOn != "" && has(found, stopOn) {
			break
		}
	}
	return found
}

// runCycle makes the steps of one cycle: operations one after the other,
// faults in the background, one at a time; it returns once the last fault
// is over.
func (r *run) runCycle(cycle int) {
	GinkgoHelper()
	var fault *faultRun
	endFault := func() {
		if fault != nil {
			<-fault.done
			Expect(fault.err).NotTo(HaveOccurred(), "the fault could not be injected or undone")
			fault = nil
		}
	}
	for _, s := range r.model.cycle() {
		r.note("cycle %d: %s", cycle, s)
		switch {
		case s.fault != "":
			endFault()
			if (s.fault == faultHookDelete || s.fault == faultHandover) && s.comp != nil {
				r.updateComponent(s.comp.name, func(c *v1alpha1.Component) { r.setSpec(c, s.comp) })
			}
			r.stats.count("fault "+s.fault, 1)
			fault = r.startFault(s)
		default:
			r.operate(s)
			r.stats.count("operation "+s.op, 1)
			if s.op == opInstance && s.target == "blocked" {
				r.stats.count("held-back deletions let go", 1)
			}
		}
		wait(ctx, s.pause) // pacing the load, not waiting for anything
	}
	endFault()
	r.note("cycle %d: faults stopped", cycle)
}

// check judges the run at a quiet point: convergence and the state once
// converged, an idle window, the whole history so far, Secret values.
func (r *run) check(cycle int) []invariants.Violation {
	took, problems := r.waitConverged()
	var out []invariants.Violation
	if problems != nil {
		out = append(out, invariants.Violation{Invariant: "convergence", Object: "namespace " + r.ns, Message: fmt.Sprintf(
			"not converged %s after the faults stopped: %s", took.Round(time.Second), strings.Join(problems, "; "))})
	} else {
		r.stats.converged(took)
		r.note("cycle %d: converged in %s", cycle, took.Round(100*time.Millisecond))
		out = append(out, r.stateViolations()...)
		from := time.Now()
		wait(ctx, config.idle)
		out = append(out, invariants.Idle(r.hist.Events(), r.facts(), from, time.Now())...)
	}
	events := r.hist.Events()
	out = append(out, r.takeViolations()...)
	out = append(out, invariants.History(events, r.facts())...)
	out = append(out, r.secretLeaks(events)...)
	r.stats.sampleRSS(cycle, r.replicas)
	return out
}

// teardown deletes every Component and the set, and checks that nothing
// is left: no object with the owner label, no role or database.
func (r *run) teardown() []invariants.Violation {
	GinkgoHelper()
	r.note("teardown: deleting every Component and the set")
	for _, c := range r.model.comps {
		if c.instance {
			r.foreignInstance(c, false, false)
		}
	}
	retry(func() error {
		return client.IgnoreNotFound(hub.Client.Delete(ctx, &v1alpha1.ComponentSet{ObjectMeta: objectMeta(r.ns, "fleet")}))
	})
	names := r.model.names()
	for _, p := range probes {
		names = append(names, p.name)
	}
	r.tornDown = true
	for _, name := range names {
		retry(func() error {
			return client.IgnoreNotFound(hub.Client.Delete(ctx, &v1alpha1.Component{ObjectMeta: objectMeta(r.ns, name)}))
		})
	}
	for _, c := range r.model.blocked {
		r.foreignInstance(c, false, true)
	}
	r.model.comps, r.model.blocked, r.model.inSet = map[string]*comp{}, map[string]*comp{}, map[string]bool{}
	gone := func() int {
		var list v1alpha1.ComponentList
		if err := hub.Client.List(ctx, &list, client.InNamespace(r.ns)); err != nil {
			return -1
		}
		return len(list.Items)
	}
	Eventually(gone).WithTimeout(config.converge).WithPolling(250*time.Millisecond).Should(BeZero(), "Components are left")
	out := r.takeViolations()
	out = append(out, r.untracked(nil)...)
	out = append(out, r.leakedCRDs()...)
	out = append(out, r.pgLeaks()...)
	events := r.hist.Events()
	out = append(out, invariants.History(events, r.facts())...)
	return append(out, r.secretLeaks(events)...)
}

// secretLeaks looks for the values of every Secret the run's namespaces
// held (but the kept renders, which are the render compressed) in the
// operators' logs and spans, PostgreSQL's log, the Events and the statuses.
func (r *run) secretLeaks(events []history.Event) []invariants.Violation {
	data := map[string][]byte{}
	texts := map[string]string{"PostgreSQL's log": pg.Log()}
	var eventsText, statuses strings.Builder
	for _, e := range events {
		switch e.Kind {
		case "Secret":
			if e.Object.Object["type"] == string(component.RenderSecretType) {
				continue
			}
			values, _ := e.Object.Object["data"].(map[string]any)
			for k, v := range values {
				decoded, _ := base64.StdEncoding.DecodeString(fmt.Sprint(v))
				data[fmt.Sprintf("%s/%s", e.Key(), k)] = decoded
			}
		case "Event":
			b, _ := json.Marshal(e.Object.Object)
			eventsText.Write(append(b, '\n'))
		case "Component", "ComponentSet":
			b, _ := json.Marshal(e.Object.Object["status"])
			statuses.Write(append(b, '\n'))
		}
	}
	texts["Events"], texts["statuses"] = eventsText.String(), statuses.String()
	texts["the spans"], _ = r.spans.received()
	for _, rep := range r.replicas {
		log, _ := os.ReadFile(r.logPath(rep.name))
		texts["the log of replica "+rep.name] = string(log)
	}
	return invariants.Secrets(invariants.SecretWords(data), texts)
}

// expectNone fails with every violation, the seed and the trace.
func (r *run) expectNone(found []invariants.Violation) {
	GinkgoHelper()
	if len(found) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d violations, %s\n", len(found), seedText(r.seed))
	for _, v := range found {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	trace := r.trace()
	b.WriteString(trace)
	switch dir, err := r.keepForReplay(trace); {
	case err != nil:
		fmt.Fprintf(&b, "keeping the logs for the replay: %v\n", err)
	case dir != "":
		fmt.Fprintf(&b, "the replicas' logs and the recorded history are kept in %s\n", dir)
	}
	Fail(b.String())
}

// trace is the operations and faults of the run, with their times.
func (r *run) trace() string {
	var b strings.Builder
	b.WriteString("trace:\n")
	for _, n := range r.hist.Notes() {
		fmt.Fprintf(&b, "  %s %s\n", n.At.Format("15:04:05.000"), n.Text)
	}
	return b.String()
}

func has(found []invariants.Violation, invariant string) bool {
	for _, v := range found {
		if v.Invariant == invariant {
			return true
		}
	}
	return false
}
