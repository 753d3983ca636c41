package engine

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("contains (drift comparison)", func() {
	DescribeTable("compares rendered fields with live ones",
		func(have, want any, expected bool) {
			Expect(contains(normaliseJSON(have), normaliseJSON(want))).To(Equal(expected))
		},
		Entry("extra live fields are ignored", map[string]any{"a": 1, "b": 2}, map[string]any{"a": 1}, true),
		Entry("a changed value is drift", map[string]any{"a": 2}, map[string]any{"a": 1}, false),
		Entry("a missing field is drift", map[string]any{}, map[string]any{"a": 1}, false),
		Entry("int and float of the same number match", map[string]any{"n": int64(3)}, map[string]any{"n": 3.0}, true),
		Entry("empty rendered maps match absent ones", map[string]any{}, map[string]any{"m": map[string]any{}}, true),
		Entry("lists match element by element, with defaults added", map[string]any{"l": []any{map[string]any{"x": 1, "default": true}}}, map[string]any{"l": []any{map[string]any{"x": 1}}}, true),
		Entry("lists of other length are drift", map[string]any{"l": []any{1, 2}}, map[string]any{"l": []any{1}}, false),
	)

	It("remembers the resourceVersion that matched", func() {
		d := newDriftDetector()
		key := manifests.ObjectKey{Kind: "ConfigMap", Namespace: "n", Name: "x"}
		want := map[string]any{"data": map[string]any{"a": "1"}}
		Expect(d.drifted(key, want, map[string]any{"data": map[string]any{"a": "1"}}, "5")).To(BeFalse())
		// Same resourceVersion: the memo answers without comparing.
		Expect(d.drifted(key, want, map[string]any{"data": map[string]any{"a": "changed"}}, "5")).To(BeFalse())
		Expect(d.drifted(key, want, map[string]any{"data": map[string]any{"a": "changed"}}, "6")).To(BeTrue())
	})
})
