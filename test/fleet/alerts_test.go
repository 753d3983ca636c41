package fleet_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/webhooktest"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// setAlerts is a webhook, a real HTTP server, that an Alert of a set's
// namespace sends the set's events to: what the operator binary tells of a
// rollout.
type setAlerts struct{ *webhooktest.Server }

// listenToSet starts the webhook and creates a Provider of it and an Alert
// of the set named in namespace, until the container ends.
func listenToSet(namespace, set string) setAlerts {
	GinkgoHelper()
	server := webhooktest.New()
	DeferCleanup(server.Close)
	Expect(hub.Client.Create(ctx, &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "rollout"},
		Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderGeneric, Address: server.URL}})).To(Succeed())
	Expect(hub.Client.Create(ctx, &v1alpha1.Alert{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "rollout"},
		Spec: v1alpha1.AlertSpec{ProviderRef: v1alpha1.LocalProviderReference{Name: "rollout"},
			EventSources: []v1alpha1.EventSource{{Kind: "ComponentSet", Name: set}}}})).To(Succeed())
	return setAlerts{server}
}

// told lists the messages of the set's events of kind the webhook got.
func (a setAlerts) told(kind notify.Kind) []string {
	GinkgoHelper()
	events, err := a.Events()
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, e := range events {
		if e.Kind == kind && e.Object.Kind == "ComponentSet" {
			out = append(out, e.Message)
		}
	}
	return out
}
