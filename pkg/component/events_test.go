package component_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

var _ = Describe("events and metrics", func() {
	It("warns of a fetch that failed, though it is retried", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "unreachable", map[string]any{"unreachable": "registry.example.com: connection refused"})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() []string { return eventNotes(ctx, ns) }).Should(ContainElement(
			"Warning Retrying: rendering: fetching chart: registry.example.com: connection refused (retrying in 1m0s)"))
	})

	It("records what it did and how it ended, once per change, and publishes metrics", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		startOperator(ctx, ns, component.ReconcilerOptions{})
		readyBefore := counter("wavekit_reconciles_total", map[string]string{"operator": operator, "result": "Ready"})
		errorBefore := counter("wavekit_reconciles_total", map[string]string{"operator": operator, "result": "Error"})
		c := newComponent(ns, "told", map[string]any{"configMaps": map[string]any{"a": map[string]any{}, "b": map[string]any{}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))

		eventually(func() []string { return eventNotes(ctx, ns) }).Should(ContainElements(
			"Normal Created: created 2 objects: ConfigMap "+ns+"/a, ConfigMap "+ns+"/b",
			"Normal Ready: every object is applied and ready",
		))

		update(ctx, c, func(c *v1alpha1.Component) { setValues(c, map[string]any{"fail": "broken"}) })
		eventually(func() []string { return eventNotes(ctx, ns) }).Should(ContainElement(
			"Warning Error: rendering: template values.yaml:3: broken"))
		Consistently(func() int {
			return count(eventNotes(ctx, ns), "Warning Error: rendering: template values.yaml:3: broken")
		}).
			WithTimeout(2 * time.Second).Should(Equal(1))

		Expect(gauge("wavekit_components", map[string]string{"operator": operator, "state": "Error"})).To(BeNumerically(">=", 1))
		Expect(counterTotal("wavekit_api_requests_total")).To(BeNumerically(">", 0))
		Expect(counter("wavekit_reconciles_total", map[string]string{"operator": operator, "result": "Ready"})).To(BeNumerically(">", readyBefore))
		Expect(counter("wavekit_reconciles_total", map[string]string{"operator": operator, "result": "Error"})).To(BeNumerically(">", errorBefore))
		eventually(func() float64 {
			started := counter("wavekit_reconciles_started_total", map[string]string{"operator": operator})
			return started - counter("wavekit_reconciles_total", map[string]string{"operator": operator})
		}).Should(BeZero(), "every reconcile started has finished")
	})
})

func eventNotes(ctx context.Context, ns string) []string {
	var list eventsv1.EventList
	Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, e := range list.Items {
		out = append(out, e.Type+" "+e.Reason+": "+e.Note)
	}
	return out
}

func count(list []string, s string) int {
	n := 0
	for _, item := range list {
		if item == s {
			n++
		}
	}
	return n
}

func gauge(name string, labels map[string]string) float64 {
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	total := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if matches(m, labels) {
				total += m.GetGauge().GetValue()
			}
		}
	}
	return total
}

func counterTotal(name string) float64 { return counter(name, nil) }

// counter sums the counters of the family name whose labels match labels.
func counter(name string, labels map[string]string) float64 {
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	total := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if matches(m, labels) {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

func matches(m *dto.Metric, labels map[string]string) bool {
	for _, l := range m.GetLabel() {
		if want, ok := labels[l.GetName()]; ok && !strings.EqualFold(want, l.GetValue()) {
			return false
		}
	}
	return true
}
