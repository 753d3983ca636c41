package fleet_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// setAlerts is a webhook, a real HTTP server, that an Alert of a set's
// namespace sends the set's events to: what the operator binary tells of a
// rollout.
type setAlerts struct {
	mu     sync.Mutex
	events []notify.Event
}

// listenToSet starts the webhook and creates a Provider of it and an Alert
// of the set named in namespace, until the container ends.
func listenToSet(namespace, set string) *setAlerts {
	GinkgoHelper()
	a := &setAlerts{}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var e notify.Event
		if err := json.NewDecoder(r.Body).Decode(&e); err == nil {
			a.mu.Lock()
			a.events = append(a.events, e)
			a.mu.Unlock()
		}
	}))
	DeferCleanup(server.Close)
	Expect(hub.Client.Create(ctx, &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "rollout"},
		Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderGeneric, Address: server.URL}})).To(Succeed())
	Expect(hub.Client.Create(ctx, &v1alpha1.Alert{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "rollout"},
		Spec: v1alpha1.AlertSpec{ProviderRef: v1alpha1.LocalProviderReference{Name: "rollout"},
			EventSources: []v1alpha1.EventSource{{Kind: "ComponentSet", Name: set}}}})).To(Succeed())
	return a
}

// told lists the messages of the events of kind the webhook got.
func (a *setAlerts) told(kind notify.Kind) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, e := range a.events {
		if e.Kind == kind && e.Object.Kind == "ComponentSet" {
			out = append(out, e.Message)
		}
	}
	return out
}
