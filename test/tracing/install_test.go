package tracing_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// secretMarker is the value of the chart's Secret: no span may carry it.
const secretMarker = "tr4ce-marker-s3cret"

var _ = Describe("the trace of an install", func() {
	ctx := context.Background()

	It("has a span per pass with read, render, plan, the waves in order, the hook Job and the status write, linked from pass to pass", func() {
		ns := newNamespace(ctx, "install")
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"}, Spec: v1alpha1.ComponentSpec{Source: "waves"}}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyAt(ctx, c) }).Should(HavePrefix("True/Ready at 1:"))
		lastTrace := get(ctx, c).Status.LastTraceID
		Expect(lastTrace).To(HaveLen(32), "status.lastTraceID: the trace of the pass that wrote the status")

		var spans []span
		var ready span
		eventually(func() []string {
			spans = received.all()
			var ids []string
			for _, p := range reconciles(spans, ns, "app") {
				ids = append(ids, p.TraceID)
				if p.TraceID == lastTrace {
					ready = p
				}
			}
			return ids
		}).Should(ContainElement(lastTrace))
		showTree(spans, ns, "app")

		By("the pass that made it Ready: the component's attributes and its steps in order")
		Expect(ready.Attributes).To(HaveKeyWithValue("wavekit.component.generation", "1"))
		Expect(ready.Attributes).To(HaveKeyWithValue("wavekit.component.uid", string(get(ctx, c).UID)))
		Expect(ready.Attributes).To(HaveKeyWithValue("wavekit.outcome", "Ready"))
		steps := children(spans, ready)
		Expect(names(steps)).To(Equal([]string{"read", "render", "plan", "wave", "wave", "wave", "wave", "write status"}))
		var waves []string
		for _, w := range steps[3:7] {
			waves = append(waves, w.Attributes["wavekit.wave"])
			Expect(w.Attributes).To(HaveKeyWithValue("wavekit.wave.done", "true"))
		}
		Expect(waves).To(Equal([]string{"-10000", "0", "1", "2"}), "the pre-install hook's wave, then the three waves")

		By("the hook: its Job's span, in a pass whose hook wave waited for it")
		passes := reconciles(spans, ns, "app")
		var jobs, held []span
		for _, p := range passes {
			for _, w := range children(spans, p) {
				if w.Name == "wave" && w.Attributes["wavekit.wave"] == "-10000" {
					jobs = append(jobs, children(spans, w)...)
					if w.Attributes["wavekit.wave.done"] == "false" {
						held = append(held, w)
					}
				}
			}
		}
		Expect(jobs).NotTo(BeEmpty())
		Expect(jobs[0].Name).To(Equal("job"))
		Expect(jobs[0].Attributes).To(HaveKeyWithValue("k8s.object.kind", "Job"))
		Expect(jobs[0].Attributes).To(HaveKeyWithValue("k8s.object.name", "app-migrate"))
		Expect(held).NotTo(BeEmpty(), "the pass that created the Job waits for it")
		Expect(held[0].Attributes["wavekit.wave.held_by"]).To(ContainSubstring("app-migrate"))

		By("wave 0 created its ConfigMap and Secret in one pass")
		Expect(createdIn(spans, passes, "0")).To(Equal(2))

		By("every pass after one that left work links to it")
		linked := 0
		for i, p := range passes[1:] {
			if slices.Contains(p.Links, passes[i].SpanID) {
				linked++
			}
		}
		Expect(linked).To(BeNumerically(">=", 2), "the write ahead's pass and the waiting passes")

		By("the log line of the pass carries its trace ID")
		Expect(logs.containing(`"msg":"reconciled"`, `"component":"`+ns+`/app"`, `"trace_id":"`+lastTrace+`"`)).NotTo(BeEmpty())

		By("wavekit tree shows the trace ID")
		kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())
		var stdout, stderr bytes.Buffer
		Expect(cli.Run(ctx, []string{"--kubeconfig", kubeconfig, "--operator-name", operatorName, "tree", ns + "/app"}, &stdout, &stderr)).To(Equal(0), stderr.String())
		Expect(stdout.String()).To(ContainSubstring("\nLast traced Reconcile: trace " + get(ctx, c).Status.LastTraceID + "\n"))

		By("the deletion is traced too: its delete waves, to the pass that removes the finalizer")
		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() []string {
			var outcomes []string
			for _, p := range reconciles(received.all(), ns, "app") {
				outcomes = append(outcomes, p.Attributes["wavekit.outcome"])
			}
			return outcomes
		}).Should(ContainElement("Deleted"))
		spans = received.all()
		var deleteWaves, deletePlans int
		for _, p := range reconciles(spans, ns, "app") {
			deleting := false
			for _, w := range children(spans, p) {
				if w.Name == "wave" && w.Attributes["wavekit.wave.direction"] == "delete" {
					deleteWaves++
					deleting = true
				}
			}
			for _, c := range children(spans, p) {
				if deleting && c.Name == "plan" {
					deletePlans++
				}
			}
		}
		Expect(deleteWaves).To(BeNumerically(">", 0))
		Expect(deletePlans).To(BeNumerically(">", 0), "a deletion pass is planned in a span of its own, as an apply pass is")

		By("no span carries the Secret's value")
		Expect(received.contains([]byte(secretMarker))).To(BeFalse())
		Expect(received.contains([]byte(base64.StdEncoding.EncodeToString([]byte(secretMarker))))).To(BeFalse())
	})

	It("marks the span of a wave that fails with the object's name, and the Warning Event with the trace ID", func() {
		ns := newNamespace(ctx, "failing")
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad"},
			Spec: v1alpha1.ComponentSpec{Source: "waves", Values: &apiextensionsv1.JSON{Raw: []byte(`{"broken":true}`)}}}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyAt(ctx, c) }).Should(And(HavePrefix("False/"), ContainSubstring("bad-refused")))

		var failed []span
		eventually(func() []span {
			failed = nil
			for _, s := range received.all() {
				if s.Name == "wave" && s.Error && s.Attributes["wavekit.wave"] == "1" && strings.Contains(s.StatusMessage, "bad-refused") {
					failed = append(failed, s)
				}
			}
			return failed
		}).ShouldNot(BeEmpty())
		// The Reconcile's span ends after its waves': the operator may
		// export it in a later batch.
		var spans []span
		var root span
		eventually(func() string {
			spans = received.all()
			for _, p := range reconciles(spans, ns, "bad") {
				if p.TraceID == failed[0].TraceID {
					root = p
				}
			}
			return root.TraceID
		}).ShouldNot(BeEmpty(), "the span of the Reconcile whose wave failed")
		showTree(spans, ns, "bad")
		Expect(root.Error).To(BeTrue(), "the Reconcile failed too")
		Expect(root.StatusMessage).To(ContainSubstring("bad-refused"))

		eventually(func() []string {
			var list eventsv1.EventList
			Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
			var notes []string
			for _, e := range list.Items {
				if e.Type == "Warning" && e.Regarding.Name == "bad" {
					notes = append(notes, e.Note)
				}
			}
			return notes
		}).Should(ContainElement(MatchRegexp(`bad-refused.*\(trace [0-9a-f]{32}\)$`)))
		Expect(received.contains([]byte(secretMarker))).To(BeFalse())
	})
})

// createdIn is the most objects a pass created in wave.
func createdIn(spans, passes []span, wave string) int {
	most := 0
	for _, p := range passes {
		for _, w := range children(spans, p) {
			if w.Name == "wave" && w.Attributes["wavekit.wave"] == wave {
				var n int
				_, _ = fmt.Sscan(w.Attributes["wavekit.objects.created"], &n)
				most = max(most, n)
			}
		}
	}
	return most
}

// showTree writes the passes of a component as trees of spans into the
// spec's output (docs/observability.md shows one).
func showTree(spans []span, namespace, name string) {
	for _, p := range reconciles(spans, namespace, name) {
		render(GinkgoWriter, spans, p, 0)
	}
}

func get(ctx context.Context, c *v1alpha1.Component) *v1alpha1.Component {
	GinkgoHelper()
	var got v1alpha1.Component
	Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), &got)).To(Succeed())
	return &got
}

func readyAt(ctx context.Context, c *v1alpha1.Component) string {
	GinkgoHelper()
	got := get(ctx, c)
	cond := got.Status.ReadyCondition()
	if cond == nil || got.Status.ObservedGeneration != got.Generation {
		return "not observed"
	}
	return fmt.Sprintf("%s/%s at %d: %s", cond.Status, cond.Reason, cond.ObservedGeneration, cond.Message)
}
