package engine_test

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

var _ = Describe("preview", func() {
	var (
		ctx context.Context
		h   *harness
		ns  string
	)
	BeforeEach(func() {
		ctx, ns, h = newSpec("preview")
	})

	// previewLines words each step as "group wave stage: action object (reason)".
	previewLines := func(p engine.Preview) []string {
		var lines []string
		for _, s := range p.Steps {
			line := fmt.Sprintf("%s %d %s: %s %s", s.Group, s.Wave, s.Stage, s.Action, s.Object)
			if s.Reason != "" {
				line += " (" + s.Reason + ")"
			}
			lines = append(lines, strings.ReplaceAll(line, ns+"/", "NS/"))
		}
		return lines
	}

	It("shows, wave by wave, the steps Apply then takes, and changes nothing", func() {
		v1 := map[string]string{"v": "1"}
		v2 := map[string]string{"v": "2"}
		h.applyUntilDone(ctx,
			configMap(ns, "a", v1), configMap(ns, "old", v1),
			configMap(ns, "b", v1, "apply-order", "1"))

		next := []any{
			configMap(ns, "a", v2),
			configMap(ns, "scratch", v1, "purge-order", "0"),
			configMap(ns, "b", v1, "apply-order", "1"), configMap(ns, "c", v1, "apply-order", "1"),
		}
		before := getConfigMap(ctx, ns, "a").ResourceVersion
		preview, err := h.applier.Preview(ctx, h.owner, toObjects(next), h.inventory)
		Expect(err).NotTo(HaveOccurred())
		Expect(previewLines(preview)).To(Equal([]string{
			"apply 0 configuration: update ConfigMap NS/a",
			"apply 0 configuration: create ConfigMap NS/scratch",
			"wait 0 : ready ConfigMap NS/a",
			"wait 0 : ready ConfigMap NS/scratch",
			"purge 0 : purge ConfigMap NS/scratch (purge-order 0)",
			"apply 1 configuration: unchanged ConfigMap NS/b (as last applied)",
			"apply 1 configuration: create ConfigMap NS/c",
			"wait 1 : ready ConfigMap NS/b",
			"wait 1 : ready ConfigMap NS/c",
			"prune 0 configuration: prune ConfigMap NS/old (no longer rendered)",
		}))
		Expect(preview.Changes()).To(BeTrue())
		Expect(getConfigMap(ctx, ns, "a").ResourceVersion).To(Equal(before), "the preview wrote a")
		Expect(getConfigMap(ctx, ns, "c")).To(BeNil(), "the preview created c")
		Expect(getConfigMap(ctx, ns, "old")).NotTo(BeNil(), "the preview deleted old")

		// What Apply then does, pass after pass, is the preview's writes in
		// the preview's order.
		var done []string
		for range 20 {
			res, err := h.apply(ctx, next...)
			Expect(err).NotTo(HaveOccurred())
			for _, a := range res.Actions {
				done = append(done, strings.ReplaceAll(fmt.Sprintf("%s %s", a.Action, a.Object), ns+"/", "NS/"))
			}
			if res.Done {
				break
			}
		}
		var previewed []string
		for _, s := range preview.Steps {
			switch s.Action {
			case engine.ActionCreate, engine.ActionUpdate:
				previewed = append(previewed, fmt.Sprintf("%s %s", s.Action, strings.ReplaceAll(s.Object.String(), ns+"/", "NS/")))
			case engine.ActionPurge, engine.ActionPrune:
				previewed = append(previewed, fmt.Sprintf("%s %s", engine.ActionDelete, strings.ReplaceAll(s.Object.String(), ns+"/", "NS/")))
			}
		}
		Expect(done).To(Equal(previewed))
	})

	It("says nothing changes when nothing would", func() {
		objects := []any{configMap(ns, "a", nil), configMap(ns, "b", nil, "apply-order", "1")}
		h.applyUntilDone(ctx, objects...)
		preview, err := h.applier.Preview(ctx, h.owner, toObjects(objects), h.inventory)
		Expect(err).NotTo(HaveOccurred())
		Expect(preview.Changes()).To(BeFalse(), "%v", previewLines(preview))
		Expect(previewLines(preview)).To(Equal([]string{
			"apply 0 configuration: unchanged ConfigMap NS/a (as last applied)",
			"wait 0 : ready ConfigMap NS/a",
			"apply 1 configuration: unchanged ConfigMap NS/b (as last applied)",
			"wait 1 : ready ConfigMap NS/b",
		}))
	})
})
