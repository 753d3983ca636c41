package components_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

var _ = Describe("wavekit dashboard", func() {
	It("serves the Components of a namespace on 127.0.0.1, read-only, until interrupted", func() {
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

		stop()
		Eventually(exited).WithTimeout(10*time.Second).Should(Receive(Equal(0)), "stderr: %s", stderr.Contents())
	})
})

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
