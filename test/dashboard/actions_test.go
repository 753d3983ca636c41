package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/oauth2-proxy/mockoidc"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/dashboard/session"
)

// The chart's roles for people (web.roles.create), which ApplyRBAC made.
const (
	viewerRole   = "wavekit-component-operator-web-viewer"
	operatorRole = "wavekit-component-operator-web-operator"
)

// People sign in at the suite's OpenID Connect provider; RBAC bindings name
// them and their groups with the page's default prefix, oidc:.
var _ = Describe("acting from the page, signed in", Ordered, func() {
	const actNS, otherNS = "act-a", "act-b"
	vera := &mockoidc.MockUser{Subject: "vera", Email: "vera@example.com", EmailVerified: true, Groups: []string{"viewers"}}
	rita := &mockoidc.MockUser{Subject: "rita", Email: "rita@example.com", EmailVerified: true, Groups: []string{"release"}}
	paula := &mockoidc.MockUser{Subject: "paula", Email: "paula@example.com", EmailVerified: true}

	BeforeAll(func() {
		for _, ns := range []string{actNS, otherNS} {
			Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
			createComponent(ns, "app", nil)
			bind(ns, "viewers-view", viewerRole, rbacv1.Subject{Kind: "Group", Name: "oidc:viewers"})
			bind(ns, "rita-view", viewerRole, rbacv1.Subject{Kind: "User", Name: "oidc:rita@example.com"})
		}
		// rita may reconcile Components in act-a, and nothing else.
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: actNS, Name: "reconcile-components"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"wavekit.dev"}, Resources: []string{"components"}, Verbs: []string{"reconcile"}}}}
		Expect(env.Client.Create(ctx, role)).To(Succeed())
		Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: actNS, Name: "rita-reconcile"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
			Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: "oidc:rita@example.com"}}})).To(Succeed())
		// paula has the chart's roles in act-a.
		bind(actNS, "paula-view", viewerRole, rbacv1.Subject{Kind: "User", Name: "oidc:paula@example.com"})
		bind(actNS, "paula-operate", operatorRole, rbacv1.Subject{Kind: "User", Name: "oidc:paula@example.com"})
		waitReady(actNS, "app")
		waitReady(otherNS, "app")
	})

	It("shows a viewer no button and refuses their POST, with or without the CSRF token", func() {
		tab := newBrowser()
		signIn(tab, vera, componentURL(actNS, "app"))
		Expect(evaluate[float64](tab, `document.querySelectorAll("form.action").length`)).To(Equal(0.0))
		Expect(post(tab, actionPath(actNS, "app", "reconcile"), true)).To(Equal(http.StatusForbidden))
		Expect(post(tab, actionPath(actNS, "app", "reconcile"), false)).To(Equal(http.StatusForbidden))
		Expect(requestedAt(actNS, "app")).To(BeEmpty(), "nothing asked the operator for a pass")
	})

	It("lets a user granted only reconcile reconcile in one namespace, shows the outcome, and refuses the rest", func() {
		tab := newBrowser()
		signIn(tab, rita, componentURL(actNS, "app"))
		Expect(evaluate[string](tab, `[...document.querySelectorAll("form.action button")].map(b => b.dataset.action).join(",")`)).
			To(Equal("reconcile"), "no suspend button")
		Expect(post(tab, actionPath(actNS, "app", "reconcile"), false)).To(Equal(http.StatusForbidden), "no CSRF token")
		Expect(do(tab, chromedp.Click(chromedp.CSS(`button[data-action="reconcile"]`)), chromedp.WaitVisible(chromedp.ID("done")))).To(Succeed())
		Expect(requestedAt(actNS, "app")).NotTo(BeEmpty())
		Eventually(func() (string, error) {
			return evaluate[string](tab, `(document.getElementById("request") || {dataset: {}}).dataset.handled || ""`)
		}).WithTimeout(time.Minute).WithPolling(200*time.Millisecond).Should(Equal("true"), func() string {
			var c v1alpha1.Component
			_ = env.Client.Get(ctx, client.ObjectKey{Namespace: actNS, Name: "app"}, &c)
			out, _ := json.Marshal(map[string]any{"annotations": c.Annotations, "handled": c.Status.LastHandledReconcileAt, "page": html(tab)})
			return "the page shows the operator handled the request: " + string(out)
		})
		Expect(html(tab)).To(ContainSubstring("handled by the operator — Ready: every object is applied and ready"))
		screenshot(tab, "dashboard-action-reconcile.png")
		Eventually(func() ([]string, error) { return actionEvents(actNS, "app") }).WithTimeout(time.Minute).
			Should(ContainElement("oidc:rita@example.com asked for reconcile from the dashboard"))
		Expect(string(operator.Out.Contents()) + string(operator.Err.Contents())).To(ContainSubstring(`"user":"oidc:rita@example.com","action":"reconcile"`))

		Expect(post(tab, actionPath(actNS, "app", "suspend"), true)).To(Equal(http.StatusForbidden), "no suspend verb")
		navigate(tab, componentURL(otherNS, "app"))
		Expect(evaluate[float64](tab, `document.querySelectorAll("form.action").length`)).To(Equal(0.0))
		Expect(post(tab, actionPath(otherNS, "app", "reconcile"), true)).To(Equal(http.StatusForbidden), "no reconcile in act-b")
		Expect(requestedAt(otherNS, "app")).To(BeEmpty())
		var c v1alpha1.Component
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: actNS, Name: "app"}, &c)).To(Succeed())
		Expect(c.Spec.Suspend).To(BeFalse())
	})

	It("suspends and resumes a Component and pauses and resumes a set's rollout with the chart's operator role", func() {
		set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: actNS, Name: "previews"}}
		set.Spec.Template.Spec.Source = "app"
		set.Spec.Inputs = &v1alpha1.Inputs{InputSource: v1alpha1.InputSource{List: []v1alpha1.InputEntry{{JSON: apiextensionsv1.JSON{Raw: []byte(`{"id":"one"}`)}}}}}
		Expect(env.Client.Create(ctx, set)).To(Succeed())
		tab := newBrowser()
		signIn(tab, paula, componentURL(actNS, "app"))
		Expect(do(tab, chromedp.Click(chromedp.CSS(`button[data-action="suspend"]`)), chromedp.WaitVisible(chromedp.CSS(`button[data-action="resume"]`)))).To(Succeed())
		Expect(suspended(actNS, "app")).To(BeTrue())
		Expect(do(tab, chromedp.Click(chromedp.CSS(`button[data-action="resume"]`)), chromedp.WaitVisible(chromedp.CSS(`button[data-action="suspend"]`)))).To(Succeed())
		Expect(suspended(actNS, "app")).To(BeFalse())
		Expect(requestedAt(actNS, "app")).NotTo(BeEmpty(), "resume asks for a pass")

		navigate(tab, base+"/s/componentset.wavekit.dev/"+actNS+"/previews")
		Expect(do(tab, chromedp.Click(chromedp.CSS(`button[data-action="suspend"]`)), chromedp.WaitVisible(chromedp.ID("paused")))).To(Succeed())
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		Expect(set.Spec.Paused).To(BeTrue())
		Expect(do(tab, chromedp.Click(chromedp.CSS(`button[data-action="resume"]`)), chromedp.WaitVisible(chromedp.CSS(`button[data-action="suspend"]`)))).To(Succeed())
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		Expect(set.Spec.Paused).To(BeFalse())
		Eventually(func() ([]string, error) { return actionEvents(actNS, "previews") }).WithTimeout(time.Minute).
			Should(ContainElements("oidc:paula@example.com asked for suspend from the dashboard", "oidc:paula@example.com asked for resume from the dashboard"))
	})

	It("rolls a Component back to its last Ready render from the page while the new one does not become ready", func() {
		createComponent(actNS, "roll", map[string]any{"greeting": "first"}, func(c *v1alpha1.Component) {
			c.Spec.Remediation = &component.Remediation{Strategy: component.RemediateRollback, Retries: 5}
			c.Spec.Intervals.Timeout = &metav1.Duration{Duration: 10 * time.Minute}
		})
		waitReady(actNS, "roll")
		var c v1alpha1.Component
		Eventually(func() (*component.StoredRender, error) {
			err := env.Client.Get(ctx, client.ObjectKey{Namespace: actNS, Name: "roll"}, &c)
			return c.Status.LastGoodRender, err
		}).WithTimeout(time.Minute).ShouldNot(BeNil(), "the Ready render is kept")
		raw, err := json.Marshal(map[string]any{"greeting": "second", "notReady": true})
		Expect(err).NotTo(HaveOccurred())
		c.Spec.Values = &apiextensionsv1.JSON{Raw: raw}
		Expect(env.Client.Update(ctx, &c)).To(Succeed())
		Eventually(func() (string, error) { return greeting(actNS, "roll-config") }).WithTimeout(time.Minute).Should(Equal("second"))

		tab := newBrowser()
		signIn(tab, paula, componentURL(actNS, "roll"))
		Eventually(func() (string, error) {
			return evaluate[string](tab, `(document.querySelector('button[data-action="rollback"]') || {}).textContent || ""`)
		}).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Equal("Roll back to generation 1"))
		Expect(do(tab, chromedp.Click(chromedp.CSS(`button[data-action="rollback"]`)), chromedp.WaitVisible(chromedp.ID("done")))).To(Succeed())
		Eventually(func() (string, error) { return greeting(actNS, "roll-config") }).WithTimeout(time.Minute).Should(Equal("first"), "the kept render is applied")
		Eventually(func() (string, error) {
			return evaluate[string](tab, `document.querySelector("p.ready b").textContent`)
		}).
			WithTimeout(time.Minute).WithPolling(200*time.Millisecond).Should(Equal("RolledBack"), "the Ready reason, live")
		Expect(html(tab)).To(ContainSubstring("rolled back to the render of generation 1 from generation 2: a rollback was requested"))
		Expect(evaluate[float64](tab, `document.querySelectorAll('button[data-action="rollback"]').length`)).To(Equal(0.0), "nothing earlier to roll back to")
		Eventually(func() ([]string, error) { return actionEvents(actNS, "roll") }).WithTimeout(time.Minute).
			Should(ContainElement("oidc:paula@example.com asked for rollback from the dashboard"))
	})

	It("sends an expired session, and no session, to sign in again", func() {
		codec, err := session.NewCodec([]byte(sessionKey))
		Expect(err).NotTo(HaveOccurred())
		sealed := func(expires time.Time) string {
			GinkgoHelper()
			value, err := codec.Seal("wavekit-dashboard-session", map[string]any{"id": "s1", "name": "oidc:rita@example.com"}, expires)
			Expect(err).NotTo(HaveOccurred())
			return value
		}
		Expect(pageWithSession(componentURL(actNS, "app"), sealed(time.Now().Add(time.Hour)))).To(Equal(http.StatusOK))
		for _, cookie := range []string{sealed(time.Now().Add(-time.Second)), ""} {
			code, location := pageWithSessionRedirect(componentURL(actNS, "app"), cookie)
			Expect(code).To(Equal(http.StatusSeeOther))
			Expect(location).To(Equal("/auth/signin?return=" + strings.ReplaceAll("/c/component.wavekit.dev/"+actNS+"/app", "/", "%2F")))
		}
	})
})

// greeting is the greeting of a ConfigMap of the Component's render.
func greeting(namespace, name string) (string, error) {
	var cm corev1.ConfigMap
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &cm)
	return cm.Data["greeting"], err
}

// bind binds the ClusterRole role to subject in namespace.
func bind(namespace, name, role string, subject rbacv1.Subject) {
	GinkgoHelper()
	subject.APIGroup = rbacv1.GroupName
	Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}, Subjects: []rbacv1.Subject{subject}})).To(Succeed())
}

// signIn signs user in from the page at url, through the provider, and
// waits until the page names them.
func signIn(tab context.Context, user *mockoidc.MockUser, url string) {
	GinkgoHelper()
	provider.QueueUser(user)
	Expect(do(tab, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("user")))).To(Succeed())
	Expect(evaluate[string](tab, `document.getElementById("user").textContent`)).To(Equal("oidc:" + user.Email))
	Expect(evaluate[string](tab, `location.href`)).To(Equal(url), "back on the page the sign-in began at")
}

// actionPath is the path of an action on a Component.
func actionPath(namespace, name, action string) string {
	return "/act/" + componentsKind + "/" + namespace + "/" + name + "/" + action
}

// post sends an action's POST from the tab, as a script of another page
// could: with the page's CSRF token or without, and returns the status.
func post(tab context.Context, path string, withToken bool) (int, error) {
	token := `""`
	if withToken {
		token = `document.querySelector('meta[name="csrf-token"]').content`
	}
	status, err := evaluateAsync[float64](tab, `fetch("`+path+`", {method: "POST", credentials: "same-origin", redirect: "manual",
		body: new URLSearchParams({csrf: `+token+`})}).then(r => r.status)`)
	return int(status), err
}

// evaluateAsync is evaluate of an expression whose value is a promise.
func evaluateAsync[T any](tab context.Context, expression string) (T, error) {
	runCtx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	return chromedp.Run(runCtx, chromedp.Evaluate[T](expression, chromedp.EvalAwaitPromise))
}

// requestedAt is the Component's reconcile request.
func requestedAt(namespace, name string) (string, error) {
	var c v1alpha1.Component
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &c)
	return c.Annotations[operatorName+"/reconcile-requested-at"], err
}

// suspended is the Component's spec.suspend.
func suspended(namespace, name string) (bool, error) {
	var c v1alpha1.Component
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &c)
	return c.Spec.Suspend, err
}

// actionEvents are the notes of the page's Events about an object.
func actionEvents(namespace, name string) ([]string, error) {
	var events corev1.EventList
	if err := env.Client.List(ctx, &events, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	var notes []string
	for _, e := range events.Items {
		if e.InvolvedObject.Name == name && e.Reason == "DashboardAction" {
			notes = append(notes, e.Message)
		}
	}
	return notes, nil
}

// pageWithSession is the status of a browser's GET of url with the
// session cookie.
func pageWithSession(url, cookie string) int {
	GinkgoHelper()
	code, _ := pageWithSessionRedirect(url, cookie)
	return code
}

// pageWithSessionRedirect is the status and Location of a browser's GET of
// url with the session cookie (none when empty), not following redirects.
func pageWithSessionRedirect(url, cookie string) (int, string) {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Accept", "text/html")
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "wavekit-dashboard-session", Value: cookie})
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(req)
	Expect(err).NotTo(HaveOccurred())
	body, _ := json.Marshal(resp.Header)
	Expect(resp.Body.Close()).To(Succeed())
	GinkgoWriter.Println(string(body))
	return resp.StatusCode, resp.Header.Get("Location")
}
