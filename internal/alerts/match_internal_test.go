package alerts

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

var _ = Describe("an Alert's selection", func() {
	event := func(kind notify.Kind, objectKind, name string) notify.Event {
		return notify.Event{Kind: kind, Severity: kind.Severity(), Message: "rendering: template values.yaml:3: boom",
			Object: notify.Object{APIVersion: "wavekit.dev/v1alpha1", Kind: objectKind, Namespace: "shop", Name: name},
			Labels: map[string]string{"tier": "web", "team": "shop"}}
	}
	alert := func(spec v1alpha1.AlertSpec) *v1alpha1.Alert {
		if spec.EventSources == nil {
			spec.EventSources = []v1alpha1.EventSource{{Kind: "Component", Name: "*"}}
		}
		return &v1alpha1.Alert{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "a"}, Spec: spec}
	}
	sends := func(a *v1alpha1.Alert, e notify.Event) bool {
		GinkgoHelper()
		ok, err := selects(a, e)
		Expect(err).NotTo(HaveOccurred())
		return ok
	}

	It("sees the objects of its own namespace only", func() {
		a := alert(v1alpha1.AlertSpec{})
		Expect(sends(a, event(notify.KindFailed, "Component", "web"))).To(BeTrue())
		other := event(notify.KindFailed, "Component", "web")
		other.Object.Namespace = "bank"
		Expect(sends(a, other)).To(BeFalse())
	})

	It("selects by kind, by name or *, and by labels", func() {
		failed := event(notify.KindFailed, "Component", "web")
		for _, tc := range []struct {
			source v1alpha1.EventSource
			want   bool
		}{
			{v1alpha1.EventSource{Kind: "Component"}, true},
			{v1alpha1.EventSource{Kind: "Component", Name: "*"}, true},
			{v1alpha1.EventSource{Kind: "Component", Name: "web"}, true},
			{v1alpha1.EventSource{Kind: "Component", Name: "api"}, false},
			{v1alpha1.EventSource{Kind: "ComponentSet", Name: "*"}, false},
			{v1alpha1.EventSource{Kind: "Component", MatchLabels: map[string]string{"tier": "web"}}, true},
			{v1alpha1.EventSource{Kind: "Component", MatchLabels: map[string]string{"tier": "web", "team": "bank"}}, false},
			{v1alpha1.EventSource{Kind: "Component", MatchLabels: map[string]string{"absent": ""}}, false},
		} {
			Expect(sends(alert(v1alpha1.AlertSpec{EventSources: []v1alpha1.EventSource{tc.source}}), failed)).To(Equal(tc.want), "%+v", tc.source)
		}
		foreign := failed
		foreign.Object.APIVersion = "example.com/v1" // a kind of the same name in another group
		Expect(sends(alert(v1alpha1.AlertSpec{}), foreign)).To(BeFalse())
	})

	It("selects the instances of a kind a ComponentDefinition defines by its apiVersion", func() {
		halted := event(notify.KindWaveHeld, "Database", "orders")
		halted.Object.APIVersion = "platform.example.com/v1alpha1"
		database := v1alpha1.EventSource{APIVersion: "platform.example.com/v1alpha1", Kind: "Database"}
		Expect(sends(alert(v1alpha1.AlertSpec{EventSources: []v1alpha1.EventSource{database}}), halted)).To(BeTrue())
		Expect(sends(alert(v1alpha1.AlertSpec{EventSources: []v1alpha1.EventSource{{Kind: "Database"}}}), halted)).To(BeFalse(),
			"without apiVersion, a kind is one of the operator's")
		other := database
		other.APIVersion = "other.example.com/v1alpha1"
		Expect(sends(alert(v1alpha1.AlertSpec{EventSources: []v1alpha1.EventSource{other}}), halted)).To(BeFalse())
	})

	It("sends errors only at severity error, and only the events it lists", func() {
		ready, failed := event(notify.KindReady, "Component", "web"), event(notify.KindFailed, "Component", "web")
		errorsOnly := alert(v1alpha1.AlertSpec{EventSeverity: v1alpha1.SeverityError})
		Expect(sends(errorsOnly, ready)).To(BeFalse())
		Expect(sends(errorsOnly, failed)).To(BeTrue())
		readyOnly := alert(v1alpha1.AlertSpec{Events: []v1alpha1.EventKind{"Ready", "RolledBack"}})
		Expect(sends(readyOnly, ready)).To(BeTrue())
		Expect(sends(readyOnly, failed)).To(BeFalse())
	})

	It("filters messages by its inclusion and exclusion lists, exclusion first", func() {
		failed := event(notify.KindFailed, "Component", "web")
		Expect(sends(alert(v1alpha1.AlertSpec{InclusionList: []string{"^nothing", "values\\.yaml"}}), failed)).To(BeTrue())
		Expect(sends(alert(v1alpha1.AlertSpec{InclusionList: []string{"^nothing"}}), failed)).To(BeFalse())
		Expect(sends(alert(v1alpha1.AlertSpec{InclusionList: []string{"boom"}, ExclusionList: []string{"template"}}), failed)).To(BeFalse())
		_, err := selects(alert(v1alpha1.AlertSpec{ExclusionList: []string{"(unclosed"}}), failed)
		Expect(err).To(MatchError(ContainSubstring("spec.exclusionList[0] is not a regular expression")))
	})

	It("sends nothing while suspended", func() {
		Expect(sends(alert(v1alpha1.AlertSpec{Suspend: true}), event(notify.KindFailed, "Component", "web"))).To(BeFalse())
	})
})
