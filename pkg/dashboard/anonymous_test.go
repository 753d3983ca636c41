package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/wavekit-dev/wavekit/pkg/dashboard"
)

// anonymousReader accepts no token, and lets the user anonymous-reader
// list Components and Events, and do every action: the page, not RBAC,
// keeps an anonymous viewer from acting.
type anonymousReader struct{}

func (anonymousReader) Authenticate(context.Context, string) (dashboard.User, error) {
	return dashboard.User{}, dashboard.ErrUnauthenticated
}

func (anonymousReader) Allowed(_ context.Context, user dashboard.User, _ dashboard.Access) (bool, error) {
	return user.Username == "anonymous-reader", nil
}

var _ = Describe("the page with an anonymous user", func() {
	It("shows what that user may list to a request without credentials, and takes no action from it", func() {
		Expect(client.IgnoreAlreadyExists(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "open"}}))).To(Succeed())
		createWithStatus("open", "site", readyStatus())
		recorder := events.NewFakeRecorder(10)
		h, err := startPage(ctx, env.Config, dashboard.Options{Auth: anonymousReader{}, Log: zap.New(zap.WriteTo(GinkgoWriter)),
			Anonymous: &dashboard.User{Username: "anonymous-reader"},
			Actions:   &dashboard.Actions{Client: env.Client, Recorder: recorder, OperatorName: "wavekit.dev"}}, func(f func()) { DeferCleanup(f) })
		Expect(err).NotTo(HaveOccurred())
		page := httptest.NewServer(h)
		DeferCleanup(page.Close)

		Eventually(func() string { return get(page.URL + "/") }).Should(ContainSubstring(`data-component="open/site"`))
		body := get(page.URL + "/c/component.wavekit.dev/open/site")
		Expect(body).NotTo(ContainSubstring(`class="action"`), "no button")
		Expect(body).NotTo(ContainSubstring(`href="/logout"`))
		Expect(body).To(ContainSubstring(`<a class="login" href="/login">log in</a>`), "a way to log in and act")
		csrf := regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`).FindStringSubmatch(body)
		Expect(csrf).To(BeNil(), "no CSRF token either")
		resp, err := http.PostForm(page.URL+"/act/component.wavekit.dev/open/site/reconcile", url.Values{"csrf": {"x"}})
		Expect(err).NotTo(HaveOccurred())
		text, _ := io.ReadAll(resp.Body)
		Expect(resp.Body.Close()).To(Succeed())
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		Expect(string(text)).To(ContainSubstring("anonymous viewers only read"))
		Expect(recorder.Events).To(BeEmpty())

		req, err := http.NewRequest(http.MethodGet, page.URL+"/", nil)
		Expect(err).NotTo(HaveOccurred())
		req.AddCookie(&http.Cookie{Name: "wavekit-dashboard-session", Value: "expired-or-forged"})
		resp, err = http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized), "a request with a session that does not open is not anonymous")
		Expect(strings.Contains(get(page.URL+"/"), "open/site")).To(BeTrue())
	})
})
