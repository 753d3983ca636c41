package notify

import (
	"strings"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("an event", func() {
	base := Event{Kind: KindFailed, Object: Object{APIVersion: "wavekit.dev/v1alpha1", Kind: "Component", Namespace: "shop", Name: "web"},
		Reason: "Error", Message: "rendering: boom", Generation: 3, Revision: "main@sha1:abc"}

	It("has one key per object, what happened, reason, message, generation and revision, and none of its time or trace", func() {
		same := base
		same.Time, same.TraceID, same.Metadata = time.Now(), "4bf92f3577b34da6a3ce929d0e0e4736", map[string]string{"a": "b"}
		Expect(same.Key()).To(Equal(base.Key()))
		for _, change := range []func(*Event){
			func(e *Event) { e.Object.Name = "api" },
			func(e *Event) { e.Object.Namespace = "other" },
			func(e *Event) { e.Kind = KindStalled },
			func(e *Event) { e.Reason = "Timeout" },
			func(e *Event) { e.Message = "rendering: bang" },
			func(e *Event) { e.Generation = 4 },
			func(e *Event) { e.Revision = "main@sha1:def" },
		} {
			other := base
			change(&other)
			Expect(other.Key()).NotTo(Equal(base.Key()))
		}
	})

	It("gets its kind's severity, a time and a bounded message", func() {
		now := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
		e := base
		e.Message = strings.Repeat("é", MaxMessageBytes)
		n := e.normalized(now)
		Expect(n.Severity).To(Equal(SeverityError))
		Expect(n.Time).To(Equal(now))
		Expect(len(n.Message)).To(BeNumerically("<=", MaxMessageBytes))
		Expect(utf8.ValidString(n.Message)).To(BeTrue())
		Expect(n.Message).To(HaveSuffix("…"))

		ready := Event{Kind: KindReady}.normalized(now)
		Expect(ready.Severity).To(Equal(SeverityInfo))
	})

	It("says in one line what happened to what", func() {
		Expect(base.Title()).To(Equal("Component shop/web: Failed (Error)"))
		e := base
		e.Kind, e.Reason = KindReady, "Ready"
		Expect(e.Title()).To(Equal("Component shop/web: Ready"))
	})
})
