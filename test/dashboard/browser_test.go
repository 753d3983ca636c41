package dashboard_test

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// chromium is Debian's chromium package; make test installs it.
const chromium = "/usr/bin/chromium"

// newBrowser starts a headless Chromium with a fresh profile for the
// current spec and returns a context of one tab in it.
func newBrowser() context.Context {
	GinkgoHelper()
	if _, err := os.Stat(chromium); err != nil {
		Fail("no " + chromium + ": make test installs Debian's chromium package (apt-get install -y chromium)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(GinkgoT().TempDir()),
		chromedp.WindowSize(1400, 900),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	DeferCleanup(func() { cancelTab(); cancelAlloc() })
	// The first run starts the browser, for the life of tab: no timeout.
	Expect(chromedp.Do(tab)).To(Succeed(), "starting chromium")
	return tab
}

// do runs actions in the tab, bounded in time.
func do(tab context.Context, actions ...chromedp.Action[chromedp.Void]) error {
	runCtx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	return chromedp.Do(runCtx, actions...)
}

// login logs the tab in through the login form.
func login(tab context.Context, token string) {
	GinkgoHelper()
	Expect(do(tab,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), token),
		chromedp.Submit(chromedp.ID("token")),
		chromedp.WaitVisible(chromedp.CSS("table.components")),
	)).To(Succeed())
}

// navigate opens url in the tab and waits for its main element.
func navigate(tab context.Context, url string) {
	GinkgoHelper()
	Expect(do(tab, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("main")))).To(Succeed())
}

// evaluate returns the value of a JavaScript expression in the tab.
func evaluate[T any](tab context.Context, expression string) (T, error) {
	runCtx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	return chromedp.Run(runCtx, chromedp.Evaluate[T](expression))
}

// rowState is the state the overview shows for a Component, "" if none.
func rowState(tab context.Context, ref string) (string, error) {
	return evaluate[string](tab, `(document.querySelector('tr[data-component="`+ref+`"]') || {dataset: {}}).dataset.state || ""`)
}

// html returns the tab's document, kept with the response bodies.
func html(tab context.Context) string {
	GinkgoHelper()
	out, err := evaluate[string](tab, "document.documentElement.outerHTML")
	Expect(err).NotTo(HaveOccurred())
	bodies.Lock()
	bodies.all = append(bodies.all, out)
	bodies.Unlock()
	return out
}

// screenshot writes the tab's viewport as a PNG named name into the
// artifacts directory ($ARTIFACTS, else wavekit-dashboard-artifacts in the
// temporary directory) and returns its path.
func screenshot(tab context.Context, name string) string {
	GinkgoHelper()
	runCtx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(runCtx, chromedp.CaptureScreenshot())
	Expect(err).NotTo(HaveOccurred())
	dir := os.Getenv("ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "wavekit-dashboard-artifacts")
	}
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	path := filepath.Join(dir, name)
	Expect(os.WriteFile(path, png, 0o644)).To(Succeed())
	GinkgoWriter.Println("screenshot:", path)
	return path
}
