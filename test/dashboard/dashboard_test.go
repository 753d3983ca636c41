package dashboard_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

var _ = Describe("the status page", Ordered, func() {
	var admin, viewerA string

	BeforeAll(func() {
		admin = viewerToken(systemNS, "admin-viewer", "")
		viewerA = viewerToken(teamA, "viewer-a", teamA)
		Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "alpha-values"},
			StringData: map[string]string{"values.yaml": "greeting: " + secretMarker}})).To(Succeed())
		createComponent(teamA, "alpha", nil, func(c *v1alpha1.Component) {
			c.Spec.ValuesFrom = []v1alpha1.ValuesReference{{Kind: "Secret", Name: "alpha-values"}}
		})
		createComponent(teamA, "waiting", nil, func(c *v1alpha1.Component) {
			c.Spec.DependsOn = []v1alpha1.DependencyReference{{Name: "base"}}
		})
		createComponent(teamB, "bravo", nil)
		waitReady(teamA, "alpha")
		waitReady(teamB, "bravo")
	})

	It("answers 401 and nothing else without a token or with a bad one", func() {
		for _, url := range []string{base + "/", componentURL(teamA, "alpha"), base + "/live"} {
			for _, token := range []string{"", "not-a-token"} {
				code, _, body, err := fetch(http.MethodGet, url, token)
				Expect(err).NotTo(HaveOccurred())
				Expect(code).To(Equal(http.StatusUnauthorized), url)
				Expect(body).NotTo(ContainSubstring("alpha"))
				Expect(body).NotTo(ContainSubstring("bravo"))
			}
		}
	})

	It("answers 405 to every method that could change something", func() {
		for _, url := range []string{base + "/", componentURL(teamA, "alpha"), base + "/live"} {
			for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
				code, _, _, err := fetch(method, url, admin)
				Expect(err).NotTo(HaveOccurred())
				Expect(code).To(Equal(http.StatusMethodNotAllowed), method+" "+url)
			}
		}
	})

	It("sends strict headers and no inline script", func() {
		code, header, body, err := fetch(http.MethodGet, base+"/", admin)
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(http.StatusOK))
		csp := header.Get("Content-Security-Policy")
		Expect(csp).To(ContainSubstring("frame-ancestors 'none'"))
		Expect(csp).To(ContainSubstring("script-src 'self'"))
		Expect(csp).NotTo(ContainSubstring("unsafe-inline"))
		Expect(header.Get("X-Content-Type-Options")).To(Equal("nosniff"))
		Expect(regexp.MustCompile(`<script(\s[^>]*)?>\s*[^<\s]`).FindString(body)).To(BeEmpty(), "an inline script")
	})

	It("lists three Components and shows one becoming Ready without a reload", func() {
		tab := newBrowser()
		login(tab, admin)
		Expect(evaluate[float64](tab, `document.querySelectorAll("tr[data-component^='team-']").length`)).To(Equal(3.0))
		Expect(rowState(tab, "team-a/waiting")).NotTo(Equal("Ready"))
		_, err := evaluate[bool](tab, `window.notReloaded = true`)
		Expect(err).NotTo(HaveOccurred())
		createComponent(teamA, "base", nil)
		Eventually(func() (string, error) { return rowState(tab, "team-a/waiting") }).
			WithTimeout(2 * time.Minute).WithPolling(200 * time.Millisecond).Should(Equal("Ready"))
		Expect(evaluate[bool](tab, `window.notReloaded === true`)).To(BeTrue(), "the page was reloaded")
		Expect(html(tab)).To(ContainSubstring("team-b"))
		screenshot(tab, "dashboard-overview.png")
	})

	It("shows a Component's waves in order and the object that holds a wave", func() {
		createComponent(teamA, "held", map[string]any{"notReady": true})
		tab := newBrowser()
		login(tab, admin)
		navigate(tab, componentURL(teamA, "held"))
		Eventually(func() (string, error) {
			return evaluate[string](tab, `[...document.querySelectorAll("section.wave")].map(s => s.dataset.wave + ":" + s.dataset.state).join(",")`)
		}).WithTimeout(2*time.Minute).WithPolling(200*time.Millisecond).Should(HavePrefix("0:done,1:holding"), "waves in order, wave 1 held")
		Expect(evaluate[string](tab, `[...document.querySelectorAll("tr[data-holds]")].map(r => r.dataset.object).join(",")`)).
			To(Equal("Deployment/held"))
		Expect(html(tab)).To(ContainSubstring("kubectl get deployment.apps -n team-a held -o yaml"))
		screenshot(tab, "dashboard-component.png")
	})

	It("shows a viewer of team-a only team-a's Components", func() {
		body := page(base+"/", viewerA)
		Expect(body).To(ContainSubstring(`data-component="team-a/alpha"`))
		Expect(body).NotTo(ContainSubstring("bravo"))
		Expect(body).NotTo(ContainSubstring("team-b"))
		Expect(page(componentURL(teamA, "alpha"), viewerA)).To(ContainSubstring("alpha-config"))
		code, _, body, err := fetch(http.MethodGet, componentURL(teamB, "bravo"), viewerA)
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(BeElementOf(http.StatusForbidden, http.StatusNotFound))
		Expect(body).NotTo(ContainSubstring("bravo"))
		Expect(body).NotTo(ContainSubstring("team-b"))
	})

	It("never shows the Secret's marker in a page, an Event or a log line", func() {
		var cm corev1.ConfigMap
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: teamA, Name: "alpha-config"}, &cm)).To(Succeed())
		Expect(cm.Data["greeting"]).To(Equal(secretMarker), "the marker reached what alpha deploys")
		page(componentURL(teamA, "alpha"), admin)
		page(base+"/?q=alpha", viewerA)
		bodies.Lock()
		leaked := containsAny(bodies.all, secretMarker)
		seen := len(bodies.all)
		bodies.Unlock()
		Expect(seen).To(BeNumerically(">", 20))
		Expect(leaked).To(BeEmpty(), "response bodies with the marker")
		var events corev1.EventList
		Expect(env.Client.List(ctx, &events)).To(Succeed())
		for _, e := range events.Items {
			Expect(e.Message).NotTo(ContainSubstring(secretMarker), "Event %s/%s", e.Namespace, e.Name)
		}
		Expect(string(operator.Out.Contents())).NotTo(ContainSubstring(secretMarker))
		Expect(string(operator.Err.Contents())).NotTo(ContainSubstring(secretMarker))
	})
})

// createComponent creates a Component of the source app with values.
func createComponent(namespace, name string, values map[string]any, mutate ...func(*v1alpha1.Component)) {
	GinkgoHelper()
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	c.Spec.Source = "app"
	if values != nil {
		raw, err := json.Marshal(values)
		Expect(err).NotTo(HaveOccurred())
		c.Spec.Values = &apiextensionsv1.JSON{Raw: raw}
	}
	for _, m := range mutate {
		m(c)
	}
	Expect(env.Client.Create(ctx, c)).To(Succeed())
}

// waitReady waits until the operator reports the Component Ready.
func waitReady(namespace, name string) {
	GinkgoHelper()
	Eventually(func() (string, error) {
		var c v1alpha1.Component
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &c)
		return string(c.Status.State), err
	}).WithTimeout(2*time.Minute).Should(Equal("Ready"), "%s/%s", namespace, name)
}
