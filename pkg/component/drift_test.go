package component_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("drift mode Warn", func() {
	It("leaves an edited field edited, names it in Drifted, and emits one Event per change, not per watch event", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "warned", map[string]any{"configMaps": map[string]any{"settings": map[string]any{"data": map[string]any{"value": "rendered"}}}})
		c.Spec.Drift = manifests.DriftSettings{Mode: manifests.DriftWarn}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		eventually(func() string { return driftedCondition(ctx, c) }).Should(Equal("False/NoDrift: every object holds what was applied"))

		editConfigMap(ctx, ns, "settings", func(data map[string]string) { data["value"] = "edited" })
		eventually(func() string { return driftedCondition(ctx, c) }).Should(Equal("True/DriftDetected: ConfigMap " + ns + "/settings: /data/value"))
		// Watch events that change nothing rendered: each makes a pass that
		// finds the same drift.
		for i := range 5 {
			labelConfigMap(ctx, ns, "settings", fmt.Sprint(i))
		}
		note := "ConfigMap " + ns + "/settings: /data/value"
		Consistently(func() []string { return driftEvents(ctx, ns) }).WithTimeout(3*time.Second).
			Should(Equal([]string{note + " (1)"}), "one Event, and no repetition of it (a series)")
		Expect(getConfigMap(ctx, ns, "settings").Data).To(HaveKeyWithValue("value", "edited"))
		Expect(readyCondition(ctx, c)).To(HavePrefix("True/Ready"))

		editConfigMap(ctx, ns, "settings", func(data map[string]string) { data["value"] = "edited again" })
		eventually(func() []string { return driftEvents(ctx, ns) }).Should(Equal([]string{note + " (2)"}), "a new change is a new occurrence")
		Consistently(func() []string { return driftEvents(ctx, ns) }).WithTimeout(2 * time.Second).Should(Equal([]string{note + " (2)"}))

		editConfigMap(ctx, ns, "settings", func(data map[string]string) { data["value"] = "rendered" })
		eventually(func() string { return driftedCondition(ctx, c) }).Should(Equal("False/NoDrift: every object holds what was applied"))
	})
})

// driftedCondition returns "Status/Reason: message" of the Drifted
// condition, or "none".
func driftedCondition(ctx context.Context, c *v1alpha1.Component) string {
	got := getComponent(ctx, c)
	cond := meta.FindStatusCondition(got.Status.Conditions, component.ConditionDrifted)
	if cond == nil {
		return "none"
	}
	return fmt.Sprintf("%s/%s: %s", cond.Status, cond.Reason, cond.Message)
}

// driftEvents lists the notes of DriftDetected Events with how often each
// occurred, adding up Events and series: the recorder folds an Event
// repeated for the same resourceVersion of the component into a series at
// once, and makes a new Event for a later one.
func driftEvents(ctx context.Context, ns string) []string {
	var list eventsv1.EventList
	Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
	occurrences := map[string]int32{}
	var notes []string
	for _, e := range list.Items {
		if e.Reason != component.ReasonDriftDetected {
			continue
		}
		n := int32(1)
		if e.Series != nil {
			n = e.Series.Count
		}
		Expect(e.Type).To(Equal("Warning"))
		if occurrences[e.Note] == 0 {
			notes = append(notes, e.Note)
		}
		occurrences[e.Note] += n
	}
	out := make([]string, len(notes))
	for i, note := range notes {
		out[i] = fmt.Sprintf("%s (%d)", note, occurrences[note])
	}
	return out
}

// editConfigMap changes the data of a ConfigMap as someone else would.
func editConfigMap(ctx context.Context, ns, name string, change func(map[string]string)) {
	GinkgoHelper()
	editConfigMapAs(ctx, ns, name, "", change)
}

// editConfigMapAs is editConfigMap as field manager ("" for the client's).
func editConfigMapAs(ctx context.Context, ns, name, manager string, change func(map[string]string)) {
	GinkgoHelper()
	eventually(func() error {
		cm := getConfigMap(ctx, ns, name)
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		change(cm.Data)
		var opts []client.UpdateOption
		if manager != "" {
			opts = append(opts, client.FieldOwner(manager))
		}
		return env.Client.Update(ctx, cm, opts...)
	}).Should(Succeed())
}

func labelConfigMap(ctx context.Context, ns, name, value string) {
	eventually(func() error {
		cm := getConfigMap(ctx, ns, name)
		cm.Labels["touched"] = value
		return env.Client.Update(ctx, cm)
	}).Should(Succeed())
}
