package helm_test

import (
	"bytes"
	"context"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The same chart, installed, upgraded and deleted with the wavekit command
// line instead of the operator.
var _ = Describe("a chart with hooks, applied with wavekit apply --wait", Ordered, func() {
	const (
		ns      = "helm-cli"
		release = "ing"
	)
	var (
		ctx        = context.Background()
		jobs       *jobObserver
		kubeconfig string
	)

	BeforeAll(func() {
		jobs = observeJobs(ns)
		kubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())
	})

	// A namespace the objects need is created (docs/policies.md), but the
	// release namespace holds the release's record, written before any
	// object: the CLI refuses one that does not exist, as helm install does
	// without --create-namespace, and says what to do.
	It("refuses a release namespace that does not exist, says so, and creates nothing", func() {
		code, _, stderr := run(kubeconfig, "apply", release, chartDir("admission"), "-n", ns, "--wait", "--timeout", "2m")
		Expect(code).To(Equal(1))
		Expect(stderr).To(Equal("error: recording the inventory before creating objects: release namespace " + ns +
			" does not exist: create it first (kubectl create namespace " + ns + "); the release's record, secret wavekit." + release +
			`, lives there: namespaces "` + ns + `" not found` + "\n"))
		Expect(exists(ctx, &corev1.Namespace{}, "", ns)).To(BeFalse())
		Expect(exists(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{}, "", webhookName(ns, release))).To(BeFalse())
		Expect(jobs.Order()).To(BeEmpty())
	})

	It("installs to Ready, with the hooks in Helm's order", func() {
		newNamespace(ctx, ns)
		out := wavekit(kubeconfig, "apply", release, chartDir("admission"), "-n", ns, "--wait", "--timeout", "2m")
		Expect(out).To(ContainSubstring("release " + ns + "/" + release + " is ready"))

		expectInstalled(ctx, ns, release)
		eventually(jobs.Order).Should(Equal([]string{release + "-admission-create", release + "-admission-patch"}))
		eventually(jobs.Podless).Should(BeEmpty(), "the Job controller made a pod for every hook Job")
		Expect(jobs.Missing()).To(BeEmpty())
		Expect(exists(ctx, &corev1.ServiceAccount{}, ns, release+"-admission")).To(BeFalse())
		Expect(exists(ctx, &batchv1.Job{}, ns, release+"-admission-patch")).To(BeFalse())
	})

	It("runs the upgrade hooks once on an upgrade", func() {
		wavekit(kubeconfig, "apply", release, chartDir("admission"), "-n", ns, "--set", "image=registry.example/app:2.0", "--wait", "--timeout", "2m")

		eventually(func() map[string]int {
			return map[string]int{
				"pre-upgrade": jobs.Runs(release + "-pre-upgrade"), "post-upgrade": jobs.Runs(release + "-post-upgrade"),
				"admission-create": jobs.Runs(release + "-admission-create"), "admission-patch": jobs.Runs(release + "-admission-patch"),
			}
		}).Should(Equal(map[string]int{"pre-upgrade": 1, "post-upgrade": 1, "admission-create": 2, "admission-patch": 2}),
			"Jobs in the order they ran: %v", jobs.Order())
		expectRolledOut(ctx, ns, release, "registry.example/app:2.0")
		eventually(jobs.Podless).Should(BeEmpty())
		Expect(jobs.Missing()).To(BeEmpty())
	})

	It("deletes everything it installed, and leaves the namespace it did not create", func() {
		wavekit(kubeconfig, "delete", release, "-n", ns, "--wait", "--timeout", "2m")

		eventually(func() []string { return leftovers(ctx, ns, release) }).Should(BeEmpty())
		var namespace corev1.Namespace
		Expect(env.Client.Get(ctx, client.ObjectKey{Name: ns}, &namespace)).To(Succeed())
		Expect(namespace.DeletionTimestamp).To(BeNil())
	})

	It("ran each hook Job to a succeeded pod before the next one was created", func() {
		Expect(jobs.Order()).NotTo(BeEmpty(), "the specs before this one ran hook Jobs")
		eventually(jobs.History).Should(Equal(jobs.OneAtATime()))
	})
})

// wavekit runs the wavekit command line in this process and expects exit
// code 0; it returns what it printed on standard output.
func wavekit(kubeconfig string, args ...string) string {
	GinkgoHelper()
	code, stdout, stderr := run(kubeconfig, args...)
	Expect(code).To(Equal(0), "stderr: %s", stderr)
	return stdout
}

// run runs the wavekit command line in this process.
func run(kubeconfig string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = cli.Run(context.Background(), append([]string{"--kubeconfig", kubeconfig}, args...), &out, &errOut)
	GinkgoWriter.Printf("wavekit %v -> %d\n%s%s", args, code, out.String(), errOut.String())
	return code, out.String(), errOut.String()
}
