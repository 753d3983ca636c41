package alerts_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/alerts"
	"github.com/wavekit-dev/wavekit/internal/testing/webhooktest"
	"github.com/wavekit-dev/wavekit/pkg/notify"
	"github.com/wavekit-dev/wavekit/pkg/notify/notifiers"
)

// newHook starts a receiver for the spec.
func newHook() *webhooktest.Server {
	h := webhooktest.New()
	DeferCleanup(h.Close)
	return h
}

// objects lists namespace/name of the objects of the alerts h got.
func objects(h *webhooktest.Server) []string {
	GinkgoHelper()
	events, err := h.Events()
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, e := range events {
		out = append(out, e.Object.Namespace+"/"+e.Object.Name)
	}
	return out
}

func provider(namespace, name string, spec v1alpha1.ProviderSpec) *v1alpha1.Provider {
	return &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: "1a2b3c4d-0000-4000-8000-000000000000"}, Spec: spec}
}

var _ = Describe("a Provider's notifier", func() {
	secretRef := &v1alpha1.LocalSecretReference{Name: "creds"}

	It("is the notifier of its type, with the address and token of its Secret", func() {
		for typ, want := range map[v1alpha1.ProviderType]any{
			v1alpha1.ProviderGeneric:     &notifiers.Webhook{URL: "https://hooks.example.com/from-secret", Token: "t0ken"},
			v1alpha1.ProviderGenericHMAC: &notifiers.Webhook{URL: "https://hooks.example.com/from-secret", HMACKey: []byte("t0ken")},
			v1alpha1.ProviderSlack:       &notifiers.Slack{URL: "https://hooks.example.com/from-secret", Channel: ""},
			v1alpha1.ProviderMSTeams:     &notifiers.Teams{URL: "https://hooks.example.com/from-secret"},
			v1alpha1.ProviderCloudEvents: &notifiers.CloudEvents{URL: "https://hooks.example.com/from-secret", Token: "t0ken"},
		} {
			n, err := alerts.NotifierFor(provider("shop", "p", v1alpha1.ProviderSpec{Type: typ, Address: "https://in.spec.example.com", SecretRef: secretRef}),
				map[string][]byte{"address": []byte(" https://hooks.example.com/from-secret\n"), "token": []byte("t0ken")})
			Expect(err).NotTo(HaveOccurred(), string(typ))
			Expect(n).To(Equal(want), string(typ))
		}
	})

	It("sets GitHub statuses on the repository of spec.address, through spec.apiURL, in a context of its own", func() {
		n, err := alerts.NotifierFor(provider("shop", "gh", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderGitHub, Address: "https://github.com/acme/shop.git",
			APIURL: "http://127.0.0.1:1/api/v3", SecretRef: secretRef}), map[string][]byte{"token": []byte("ghp_x")})
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(&notifiers.GitHub{API: "http://127.0.0.1:1/api/v3", Owner: "acme", Repo: "shop", Token: "ghp_x", ContextSuffix: "1a2b3c4d"}))
	})

	It("says what is missing, naming the Provider and never a value", func() {
		for spec, want := range map[*v1alpha1.ProviderSpec]string{
			{Type: v1alpha1.ProviderSlack, SecretRef: secretRef}:                                         "Provider shop/p: neither spec.address nor its Secret's key address gives an address",
			{Type: v1alpha1.ProviderGenericHMAC, Address: "https://h.example.com", SecretRef: secretRef}: "Provider shop/p: its Secret creds has no key token, which a generic-hmac Provider needs",
			{Type: v1alpha1.ProviderGitHub, Address: "https://github.com/acme"}:                          "Provider shop/p: its Secret (none: spec.secretRef is not set) has no key token, which a github Provider needs",
			{Type: v1alpha1.ProviderMSTeams, SecretRef: secretRef}:                                       "Provider shop/p: the address (spec.address, or its Secret's key address) is not an http or https URL",
		} {
			data := map[string][]byte{}
			if spec.Type == v1alpha1.ProviderMSTeams {
				data["address"] = []byte("ftp://s3cret-host/s3cret-path")
			}
			_, err := alerts.NotifierFor(provider("shop", "p", *spec), data)
			Expect(err).To(MatchError(want))
			Expect(err.Error()).NotTo(ContainSubstring("s3cret"))
		}
	})

	It("bounds a try by spec.timeout", func() {
		stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body) // read to the end: the server then notices a client that goes
			<-r.Context().Done()
		}))
		DeferCleanup(stuck.Close)
		DeferCleanup(stuck.CloseClientConnections)
		n, err := alerts.NotifierFor(provider("shop", "p", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderGeneric, Address: stuck.URL,
			Timeout: &metav1.Duration{Duration: 1}}), nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(n.Notify(context.Background(), notify.Event{Kind: notify.KindTest})).To(MatchError(ContainSubstring("context deadline exceeded")))
	})
})
