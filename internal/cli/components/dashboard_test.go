package components_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

var _ = Describe("wavekit dashboard", func() {
	It("serves the Components of a namespace on 127.0.0.1 until interrupted, and acts as you", func() {
		ns := clitest.NewNamespace()
		shop := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "wavekit.dev/v1alpha1", "kind": "Component",
			"metadata": map[string]any{"namespace": ns, "name": "shop"},
			"spec":     map[string]any{"source": "web"},
		}}
		Expect(clitest.Env.Client.Create(context.Background(), shop)).To(Succeed())
		runCtx, stop := context.WithCancel(context.Background())
		stdout, stderr := gbytes.NewBuffer(), gbytes.NewBuffer()
		exited := make(chan int)
		go func() {
			exited <- cli.Run(runCtx, []string{"--kubeconfig", clitest.Kubeconfig, "dashboard", "-n", ns, "--port", "0"}, stdout, stderr)
		}()
		DeferCleanup(stop)
		Eventually(stdout).WithTimeout(time.Minute).Should(gbytes.Say(`http://127\.0\.0\.1:\d+/`))
		url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(string(stdout.Contents()))

		Eventually(func() (string, error) { return getBody(url) }).WithTimeout(10 * time.Second).
			Should(ContainSubstring(`data-component="` + ns + `/shop"`))
		resp, err := http.Post(url, "text/plain", nil)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusMethodNotAllowed))

		By("acting as the kubeconfig's user, with the page's CSRF token, on 127.0.0.1 only")
		page, err := getBody(url + "c/component.wavekit.dev/" + ns + "/shop")
		Expect(err).NotTo(HaveOccurred())
		Expect(page).To(ContainSubstring(`data-action="reconcile"`))
		csrf := regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`).FindStringSubmatch(page)
		Expect(csrf).To(HaveLen(2))
		action := url + "act/component.wavekit.dev/" + ns + "/shop/reconcile"
		Expect(postForm(action, "127.0.0.1", "")).To(Equal(http.StatusForbidden), "no CSRF token")
		Expect(postForm(action, "rebound.example", csrf[1])).To(Equal(http.StatusForbidden), "another host name")
		Expect(postForm(action, "127.0.0.1", csrf[1])).To(Equal(http.StatusSeeOther))
		Expect(clitest.Env.Client.Get(context.Background(), client.ObjectKeyFromObject(shop), shop)).To(Succeed())
		Expect(shop.GetAnnotations()).To(HaveKey("wavekit.dev/reconcile-requested-at"))
		Eventually(func() ([]string, error) {
			var events corev1.EventList
			err := clitest.Env.Client.List(context.Background(), &events, client.InNamespace(ns))
			var notes []string
			for _, e := range events.Items {
				notes = append(notes, e.Reason+": "+e.Message)
			}
			return notes, err
		}).WithTimeout(10 * time.Second).Should(ContainElement(MatchRegexp(`^DashboardAction: \S+ asked for reconcile from the dashboard$`)))

		stop()
		Eventually(exited).WithTimeout(10*time.Second).Should(Receive(Equal(0)), "stderr: %s", stderr.Contents())
	})
})

// postForm posts an action's form with the CSRF token (none when empty) to
// url, as host, and returns the status, not following a redirect.
func postForm(url, host, csrf string) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader("csrf="+csrf))
	if err != nil {
		return 0, err
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}

// getBody returns the body of GET url.
func getBody(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}
