package engine_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("drift modes and ignore rules", func() {
	It("refuses an invalid ignore-fields pointer with the object and the pointer named, and writes nothing", func() {
		ctx, ns, h := newSpec("badpointer")
		good := configMap(ns, "good", map[string]string{"a": "1"})
		bad := configMap(ns, "bad", map[string]string{"a": "1"}, "ignore-fields", "/data/a,data/b")
		_, err := h.apply(ctx, good, bad)
		var userErr *manifests.UserError
		Expect(errors.As(err, &userErr)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(`invalid manifests: ConfigMap ` + ns + `/bad: annotation test.wavekit.dev/ignore-fields has invalid value "/data/a,data/b" ` +
			`(allowed: comma-separated JSON pointers such as /spec/replicas,/metadata/annotations/a~1b: JSON pointer "data/b" does not start with /)`))
		Expect(h.counter.Writes()).To(BeZero())
		Expect(h.saves).To(BeZero())
	})

	It("refuses an invalid ignore rule of the owner before anything is written", func() {
		ctx, ns, h := newSpec("badrule")
		h.owner.Drift = manifests.DriftSettings{Ignore: []manifests.IgnoreRule{
			{Paths: []string{"/data/a"}},
			{Paths: []string{"/data/a"}, Target: &manifests.ObjectSelector{Name: "web-("}},
		}}
		_, err := h.apply(ctx, configMap(ns, "web-1", map[string]string{"a": "1"}))
		Expect(err).To(MatchError(ContainSubstring(`drift ignore rule 2: target name "web-(": error parsing regexp`)))
		Expect(h.counter.Writes()).To(BeZero())
	})

	It("in mode Warn reports an edited field once per change and leaves it", func() {
		ctx, ns, h := newSpec("warn")
		h.owner.Drift.Mode = manifests.DriftWarn
		settings := configMap(ns, "settings", map[string]string{"value": "rendered", "other": "x"})
		h.applyUntilDone(ctx, settings)
		edit := func(value string) { editSettings(ctx, h, ns, value) }
		drifted := func() []engine.Drift {
			res, err := h.apply(ctx, settings)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Changed).To(BeFalse())
			return res.Drifted
		}

		edit("edited")
		h.counter.Reset()
		key := manifests.ObjectKey{Kind: "ConfigMap", Namespace: ns, Name: "settings"}
		Expect(drifted()).To(Equal([]engine.Drift{{Object: key, Paths: []string{"/data/value"}, New: true}}))
		Expect(drifted()).To(Equal([]engine.Drift{{Object: key, Paths: []string{"/data/value"}}}), "the same drift is no news")
		Expect(h.counter.Writes()).To(BeZero())
		Expect(getConfigMap(ctx, ns, "settings").Data).To(HaveKeyWithValue("value", "edited"))

		edit("edited again")
		Expect(drifted()).To(Equal([]engine.Drift{{Object: key, Paths: []string{"/data/value"}, New: true}}), "another value is another change")

		edit("rendered")
		Expect(drifted()).To(BeEmpty(), "edited back")
	})

	It("leaves a drift a preview saw to the next pass: corrected in mode Correct, reported once in mode Warn", func() {
		ctx, ns, h := newSpec("previewdrift")
		settings := configMap(ns, "settings", map[string]string{"value": "rendered"})
		key := manifests.ObjectKey{Kind: "ConfigMap", Namespace: ns, Name: "settings"}
		h.applyUntilDone(ctx, settings)
		edit := func(value string) { editSettings(ctx, h, ns, value) }
		previewShowsUpdate := func() {
			GinkgoHelper()
			preview, err := h.applier.Preview(ctx, h.owner, toObjects([]any{settings}), h.inventory)
			Expect(err).NotTo(HaveOccurred())
			Expect(preview.Steps[0].Action).To(Equal(engine.ActionUpdate), "%+v", preview.Steps)
		}

		edit("edited")
		previewShowsUpdate()
		previewShowsUpdate()
		res, err := h.apply(ctx, settings)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Actions).To(Equal([]engine.ObjectAction{{Object: key, Action: engine.ActionUpdate, Corrected: true}}))
		Expect(getConfigMap(ctx, ns, "settings").Data).To(HaveKeyWithValue("value", "rendered"))

		h.owner.Drift.Mode = manifests.DriftWarn
		edit("edited")
		for range 2 {
			preview, err := h.applier.Preview(ctx, h.owner, toObjects([]any{settings}), h.inventory)
			Expect(err).NotTo(HaveOccurred())
			Expect(preview.Changes()).To(BeFalse(), "mode Warn leaves a drift: %+v", preview.Steps)
		}
		res, err = h.apply(ctx, settings)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Drifted).To(Equal([]engine.Drift{{Object: key, Paths: []string{"/data/value"}, New: true}}), "the preview reported it already")
		res, err = h.apply(ctx, settings)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Drifted).To(Equal([]engine.Drift{{Object: key, Paths: []string{"/data/value"}}}), "reported twice")
	})

	It("in mode Disabled neither corrects nor reports, yet applies a changed rendering", func() {
		ctx, ns, h := newSpec("disabled")
		h.owner.Drift.Mode = manifests.DriftDisabled
		h.applyUntilDone(ctx, configMap(ns, "settings", map[string]string{"value": "rendered"}))
		live := getConfigMap(ctx, ns, "settings")
		live.Data["value"] = "edited"
		Expect(env.Client.Update(ctx, live)).To(Succeed())
		h.waitForCache(ctx)

		res, err := h.apply(ctx, configMap(ns, "settings", map[string]string{"value": "rendered"}))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Drifted).To(BeEmpty())
		Expect(getConfigMap(ctx, ns, "settings").Data).To(HaveKeyWithValue("value", "edited"))

		h.applyUntilDone(ctx, configMap(ns, "settings", map[string]string{"value": "rendered 2"}))
		Expect(getConfigMap(ctx, ns, "settings").Data).To(HaveKeyWithValue("value", "rendered 2"))
	})

	It("does not compare fields its ignore-fields annotation names, and corrects the others", func() {
		ctx, ns, h := newSpec("ignorefields")
		settings := configMap(ns, "settings", map[string]string{"value": "rendered", "other": "x"}, "ignore-fields", "/data/value")
		h.applyUntilDone(ctx, settings)
		live := getConfigMap(ctx, ns, "settings")
		live.Data["value"] = "edited"
		Expect(env.Client.Update(ctx, live)).To(Succeed())
		h.waitForCache(ctx)
		h.counter.Reset()

		h.applyUntilDone(ctx, settings)
		Expect(h.counter.Writes()).To(BeZero())

		live = getConfigMap(ctx, ns, "settings")
		live.Data["other"] = "edited"
		Expect(env.Client.Update(ctx, live)).To(Succeed())
		h.waitForCache(ctx)
		h.applyUntilDone(ctx, settings)
		Expect(getConfigMap(ctx, ns, "settings").Data).To(Equal(map[string]string{"value": "edited", "other": "x"}),
			"the other field is corrected; the ignored one, which kubectl's update now owns, keeps its value")
	})
})

// editSettings plays another writer: it sets data.value of the ConfigMap
// ns/settings and waits until the applier's cache sees it.
func editSettings(ctx context.Context, h *harness, ns, value string) {
	GinkgoHelper()
	live := getConfigMap(ctx, ns, "settings")
	live.Data["value"] = value
	Expect(env.Client.Update(ctx, live)).To(Succeed())
	h.waitForCache(ctx)
}
