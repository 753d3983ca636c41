package alerts_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/alerts"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/internal/testing/webhooktest"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

var operators atomic.Int64

// startAlerts runs a manager with the alerts' dispatcher, reading Secrets
// as the lockdown's account lockdown of each namespace ("": as itself),
// and returns the dispatcher and the operator name its metrics carry.
func startAlerts(ctx context.Context, lockdown string) (notify.Sink, string) {
	GinkgoHelper()
	name := fmt.Sprintf("alerts%d.wavekit.dev", operators.Add(1))
	mgr, err := ctrl.NewManager(env.Config, componenttest.ManagerOptions(scheme))
	Expect(err).NotTo(HaveOccurred())
	secrets, err := operator.NamespaceReaders(mgr, lockdown)
	Expect(err).NotTo(HaveOccurred())
	d, err := alerts.Setup(mgr, alerts.Options{Name: name, Secrets: secrets, Dispatch: notify.Options{Backoff: time.Millisecond, Burst: -1}})
	Expect(err).NotTo(HaveOccurred())
	Expect(d).NotTo(BeNil())
	componenttest.RunManager(ctx, mgr)
	return d, name
}

func newNamespace(ctx context.Context, prefix string) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	Expect(env.Client.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

func create(ctx context.Context, objects ...client.Object) {
	GinkgoHelper()
	for _, o := range objects {
		Expect(env.Client.Create(ctx, o)).To(Succeed())
	}
}

// webhookTo is a Secret with the address of h, and a generic Provider of it.
func webhookTo(namespace, name string, h *webhooktest.Server, extra map[string]string) (*corev1.Secret, *v1alpha1.Provider) {
	data := map[string]string{"address": h.URL + "/s3cret-path"}
	for k, v := range extra {
		data[k] = v
	}
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, StringData: data},
		&v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderGeneric, SecretRef: &v1alpha1.LocalSecretReference{Name: name}}}
}

func alertOf(namespace, name, provider string, sources ...v1alpha1.EventSource) *v1alpha1.Alert {
	if len(sources) == 0 {
		sources = []v1alpha1.EventSource{{Kind: "Component", Name: "*"}}
	}
	return &v1alpha1.Alert{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: v1alpha1.AlertSpec{ProviderRef: v1alpha1.LocalProviderReference{Name: provider}, EventSources: sources}}
}

func failed(namespace, name string) notify.Event {
	return notify.Event{Kind: notify.KindFailed, Reason: "Error", Message: "rendering: boom",
		Object: notify.Object{APIVersion: "wavekit.dev/v1alpha1", Kind: "Component", Namespace: namespace, Name: name}}
}

func dropped(operator, reason string) float64 {
	GinkgoHelper()
	total, err := componenttest.Counter("wavekit_alerts_dropped_total", map[string]string{"operator": operator, "reason": reason})
	Expect(err).NotTo(HaveOccurred())
	return total
}

var _ = Describe("routing", func() {
	ctx := context.Background()

	It("sends an event to the Provider of each Alert of its own namespace that selects it, once per Provider, and nothing to another namespace's Alerts", func() {
		shop, other := newNamespace(ctx, "shop"), newNamespace(ctx, "other")
		shopHook, otherHook := newHook(), newHook()
		secret, provider := webhookTo(shop, "hook", shopHook, nil)
		create(ctx, secret, provider, alertOf(shop, "all", "hook"), alertOf(shop, "web", "hook", v1alpha1.EventSource{Kind: "Component", Name: "web"}))
		// The other tenant's Alerts try to see the shop's web: every
		// Component, and one named as the shop's is.
		secret, provider = webhookTo(other, "hook", otherHook, nil)
		create(ctx, secret, provider, alertOf(other, "everything", "hook"),
			alertOf(other, "theirs", "hook", v1alpha1.EventSource{Kind: "Component", Name: "web"}, v1alpha1.EventSource{Kind: "ComponentSet"}))
		d, _ := startAlerts(ctx, "")

		d.Send(failed(shop, "web"))
		d.Send(failed(other, "own"))
		Eventually(func() []string { return objects(shopHook) }).Should(Equal([]string{shop + "/web"}), "two Alerts, one Provider: one message")
		// Routing is in order and each Provider's deliveries too: once the
		// other tenant's own event has arrived, anything of the shop's
		// routed to it would have arrived before.
		Eventually(func() []string { return objects(otherHook) }).Should(Equal([]string{other + "/own"}))
		Expect(objects(shopHook)).To(Equal([]string{shop + "/web"}))
		for _, body := range append(shopHook.Bodies(), otherHook.Bodies()...) {
			Expect(body).NotTo(ContainSubstring("s3cret-path"), "the address from the Secret is not in the payload")
		}
	})

	It("reads a Provider's Secret as the namespace's account under the lockdown: a tenant cannot send a Secret its account may not read", func() {
		tenant := newNamespace(ctx, "tenant")
		own, thief := newHook(), newHook()
		ownSecret, ownProvider := webhookTo(tenant, "own", own, nil)
		// The platform's Secret in the tenant's namespace, which the
		// tenant's account may not read; its address is the thief's.
		dbSecret, exfil := webhookTo(tenant, "db", thief, map[string]string{"token": "db-s3cret-value"})
		create(ctx, ownSecret, ownProvider, dbSecret, exfil, alertOf(tenant, "own", "own"), alertOf(tenant, "exfil", "db"),
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "tenant"}},
			&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "own-secret"}, Rules: []rbacv1.PolicyRule{{
				APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"own"}, Verbs: []string{"get"}}}},
			&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "own-secret"},
				RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "own-secret"},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: tenant, Name: "tenant"}}})

		d, name := startAlerts(ctx, "tenant")
		d.Send(failed(tenant, "web"))
		Eventually(func() []string { return objects(own) }).Should(Equal([]string{tenant + "/web"}), "the Secret the account may read works")
		Eventually(func() float64 { return dropped(name, "rejected") }).Should(Equal(1.0), "the other is refused, not retried")
		Expect(thief.Bodies()).To(BeEmpty())

		By("the same Provider sends without the lockdown, where the operator reads as itself: the lockdown is what stops it")
		unlocked, _ := startAlerts(ctx, "")
		unlocked.Send(failed(tenant, "web"))
		Eventually(func() []string { return objects(thief) }).Should(Equal([]string{tenant + "/web"}))
		for _, body := range thief.Bodies() {
			Expect(body).NotTo(ContainSubstring("db-s3cret-value"), "the token is never in the payload")
		}
	})

	It("warns on an Alert that cannot send, and sends the others", func() {
		shop := newNamespace(ctx, "shop")
		h := newHook()
		secret, provider := webhookTo(shop, "hook", h, nil)
		broken := alertOf(shop, "broken", "hook")
		broken.Spec.InclusionList = []string{"(unclosed"}
		create(ctx, secret, provider, broken, alertOf(shop, "lost", "no-such-provider"), alertOf(shop, "fine", "hook"))
		d, name := startAlerts(ctx, "")
		d.Send(failed(shop, "web"))
		Eventually(func() []string { return objects(h) }).Should(Equal([]string{shop + "/web"}))
		Eventually(func() float64 { return dropped(name, "route_failed") }).Should(Equal(1.0))
		Eventually(func() []string { return warnings(ctx, shop) }).Should(ConsistOf(
			"Alert broken InvalidExpression: spec.inclusionList[0] is not a regular expression: error parsing regexp: missing closing ): `(unclosed`",
			"Alert lost ProviderNotFound: spec.providerRef: Provider "+shop+"/no-such-provider does not exist",
		))
	})
})

// warnings lists "Kind name Reason: note" of the Warning Events of namespace.
func warnings(ctx context.Context, namespace string) []string {
	var list eventsv1.EventList
	Expect(env.Client.List(ctx, &list, client.InNamespace(namespace))).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.Type == "Warning" {
			out = append(out, strings.Join([]string{e.Regarding.Kind, e.Regarding.Name, e.Reason + ":", e.Note}, " "))
		}
	}
	return out
}
