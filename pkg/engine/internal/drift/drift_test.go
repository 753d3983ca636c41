package drift

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("contains (drift comparison)", func() {
	DescribeTable("compares rendered fields with live ones",
		func(have, want any, expected bool) {
			Expect(jsonvalue.Contains(jsonvalue.Normalise(have), jsonvalue.Normalise(want))).To(Equal(expected))
			var paths []string
			differences(jsonvalue.Normalise(have), jsonvalue.Normalise(want), nil, nil, &paths)
			Expect(paths == nil).To(Equal(expected), "differences agrees with contains: %v", paths)
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
		d := NewDetector()
		key := manifests.ObjectKey{Kind: "ConfigMap", Namespace: "n", Name: "x"}
		want := map[string]any{"data": map[string]any{"a": "1"}}
		Expect(d.Drifted(key, want, map[string]any{"data": map[string]any{"a": "1"}}, "5", nil)).To(BeEmpty())
		// Same resourceVersion: the memo answers without comparing.
		Expect(d.Drifted(key, want, map[string]any{"data": map[string]any{"a": "changed"}}, "5", nil)).To(BeEmpty())
		Expect(d.Drifted(key, want, map[string]any{"data": map[string]any{"a": "changed"}}, "6", nil)).To(Equal([]string{"/data/a"}))
	})

	It("compares again when the ignore rules change, since fewer rules compare more", func() {
		d := NewDetector()
		key := manifests.ObjectKey{Kind: "ConfigMap", Namespace: "n", Name: "x"}
		want := map[string]any{"data": map[string]any{"a": "1"}}
		live := map[string]any{"data": map[string]any{"a": "changed"}}
		Expect(d.Drifted(key, want, live, "5", []manifests.Pointer{{"data", "a"}})).To(BeEmpty())
		Expect(d.Drifted(key, want, live, "5", nil)).To(Equal([]string{"/data/a"}))
	})

	It("reports a drift once per change: the same paths with the same live values are no news", func() {
		d := NewDetector()
		key := manifests.ObjectKey{Kind: "ConfigMap", Namespace: "n", Name: "x"}
		live := map[string]any{"data": map[string]any{"a": "edited"}}
		Expect(d.FirstReport(key, []string{"/data/a"}, live)).To(BeTrue())
		Expect(d.FirstReport(key, []string{"/data/a"}, live)).To(BeFalse())
		Expect(d.FirstReport(key, []string{"/data/a"}, map[string]any{"data": map[string]any{"a": "again"}})).To(BeTrue())
		d.Accept(key, "7") // corrected or edited back: a later drift is news again
		Expect(d.FirstReport(key, []string{"/data/a"}, map[string]any{"data": map[string]any{"a": "again"}})).To(BeTrue())
	})
})

var _ = Describe("differences (drifted field paths)", func() {
	want := map[string]any{
		"spec": map[string]any{"replicas": 1.0, "template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "app", "image": "app:1"}}}}},
		"data": map[string]any{"a/b": "x"},
	}
	DescribeTable("names what differs as JSON pointers, skipping ignored paths",
		func(live map[string]any, ignore []string, expected []string) {
			var pointers []manifests.Pointer
			for _, text := range ignore {
				p, err := manifests.ParsePointer(text)
				Expect(err).NotTo(HaveOccurred())
				pointers = append(pointers, p)
			}
			var paths []string
			differences(jsonvalue.Normalise(live), jsonvalue.Normalise(want), nil, pointers, &paths)
			Expect(paths).To(Equal(expected))
		},
		Entry("nothing differs", want, nil, nil),
		Entry("a scaled Deployment", withValue(want, 3.0, "spec", "replicas"), nil, []string{"/spec/replicas"}),
		Entry("a scaled Deployment, replicas ignored", withValue(want, 3.0, "spec", "replicas"), []string{"/spec/replicas"}, nil),
		Entry("a list element's field, with its index", withValue(want, []any{map[string]any{"name": "app", "image": "app:2"}}, "spec", "template", "spec", "containers"), nil,
			[]string{"/spec/template/spec/containers/0/image"}),
		Entry("a list element's field ignored by index", withValue(want, []any{map[string]any{"name": "app", "image": "app:2"}}, "spec", "template", "spec", "containers"),
			[]string{"/spec/template/spec/containers/0/image"}, nil),
		Entry("a key with a slash is escaped", withValue(want, "y", "data", "a/b"), nil, []string{"/data/a~1b"}),
		Entry("a missing map is one path", map[string]any{"spec": want["spec"]}, nil, []string{"/data"}),
		Entry("a whole ignored map", map[string]any{"spec": want["spec"]}, []string{"/data"}, nil),
	)
})

// withValue is a deep copy of obj with value at the path of keys.
func withValue(obj map[string]any, value any, keys ...string) map[string]any {
	out := jsonvalue.Normalise(obj).(map[string]any)
	m := out
	for _, k := range keys[:len(keys)-1] {
		m = m[k].(map[string]any)
	}
	m[keys[len(keys)-1]] = value
	return out
}
