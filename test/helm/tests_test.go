package helm_test

import (
	"context"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// secretValue is the password the tested chart's Secret holds: nothing a
// test run prints or records may show it.
const secretValue = "s3cr3t-test-password"

// The tested chart's tests, run by wavekit test as helm test runs them,
// while the cluster's Job controller runs the Jobs and kwok their pods:
// test-connection (weight -1, hook-succeeded) before test-data (weight 0,
// no delete policy), which fails when failTest is true.
var _ = Describe("a chart's tests, run with wavekit test", Ordered, func() {
	const (
		ns      = "helm-tests-cli"
		release = "web"
	)
	var (
		ctx        = context.Background()
		jobs       *jobObserver
		kubeconfig string
	)
	connection, data := release+"-test-connection", release+"-test-data"

	BeforeAll(func() {
		newNamespace(ctx, ns)
		jobs = observeJobs(ns)
		kubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())
	})

	It("installs without creating a test, then runs them one at a time in weight order and deletes the hook-succeeded one", func() {
		wavekit(kubeconfig, "apply", release, chartDir("tested"), "-n", ns, "--wait", "--timeout", "2m")
		Expect(jobs.Order()).To(BeEmpty(), "an install never creates a test")

		out := wavekit(kubeconfig, "test", release, "-n", ns, "--timeout", "2m")
		Expect(out).To(Equal("Passed  batch/Job " + ns + "/" + connection + "\n" +
			"Passed  batch/Job " + ns + "/" + data + "\n" +
			"release " + ns + "/" + release + ": 2 of 2 tests passed\n"))
		Expect(jobs.History()).To(Equal(jobs.OneAtATime()), "one test at a time, each waited for")
		Expect(jobs.Order()).To(Equal([]string{connection, data}))
		Expect(exists(ctx, &batchv1.Job{}, ns, connection)).To(BeFalse(), "hook-succeeded: deleted once it passed")
		Expect(exists(ctx, &batchv1.Job{}, ns, data)).To(BeTrue(), "no delete policy: kept until the next run")
	})

	It("creates every test anew on the next run (before-hook-creation)", func() {
		wavekit(kubeconfig, "test", release, "-n", ns)
		Expect(jobs.Order()).To(Equal([]string{connection, data, connection, data}))
	})

	It("exits 1 on a failed test, names it with its failure and prints what the cluster has of its pod's log, never a Secret's value", func() {
		wavekit(kubeconfig, "apply", release, chartDir("tested"), "-n", ns, "--set", "failTest=true", "--wait", "--timeout", "2m")

		code, stdout, stderr := run(kubeconfig, "test", release, "-n", ns, "--timeout", "2m")
		Expect(code).To(Equal(1))
		Expect(stderr).To(HavePrefix("error: release " + ns + "/" + release + ": test batch/Job " + ns + "/" + data + " failed: "))
		Expect(stderr).To(ContainSubstring("BackoffLimitExceeded"))
		Expect(stdout).To(MatchRegexp("^Passed  batch/Job " + ns + "/" + connection + "\n" +
			"Failed  batch/Job " + ns + "/" + data + ": BackoffLimitExceeded: .*\n" +
			"--- (no )?logs of pod " + ns + "/" + data + `-\w+ \(Failed\), container check`))
		Expect(stdout + stderr).NotTo(ContainSubstring(secretValue))
		Expect(exists(ctx, &batchv1.Job{}, ns, data)).To(BeTrue(), "a failed test without hook-failed stays, for its logs")
	})

	It("fails a test that does not finish within --timeout", func() {
		wavekit(kubeconfig, "apply", release, chartDir("tested"), "-n", ns, "--set", "hangTest=true", "--wait", "--timeout", "2m")

		code, stdout, stderr := run(kubeconfig, "test", release, "-n", ns, "--timeout", "2s")
		Expect(code).To(Equal(1))
		Expect(stdout).To(HaveSuffix("Skipped batch/Job "+ns+"/"+data+"\n"), "the tests after a failed one do not run")
		Expect(stderr).To(HavePrefix("error: release " + ns + "/" + release + ": test batch/Job " + ns + "/" + connection +
			" failed: did not finish in time"))
	})

	It("deletes the tests that stayed with the release", func() {
		wavekit(kubeconfig, "delete", release, "-n", ns, "--wait")
		Expect(exists(ctx, &batchv1.Job{}, ns, data)).To(BeFalse())
		Expect(exists(ctx, &batchv1.Job{}, ns, connection)).To(BeFalse())
	})
})

// The same tests run by the operator after each install or upgrade of a
// Component with spec.test.
var _ = Describe("a chart's tests, run by the operator (spec.test)", Ordered, func() {
	const ns = "helm-tests-operator"
	var (
		ctx      = context.Background()
		jobs     *jobObserver
		instance *v1alpha1.Component
	)
	connection, data := "op-test-connection", "op-test-data"

	BeforeAll(func() {
		newNamespace(ctx, ns)
		jobs = observeJobs(ns)
		instance = &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "op"},
			Spec: v1alpha1.ComponentSpec{Source: "tested", Test: &component.Test{Enable: true}}}
	})

	It("runs the tests once the install is ready, and says so in Ready and TestSuccess", func() {
		Expect(env.Client.Create(ctx, instance)).To(Succeed())
		eventually(func() string { return readyAt(ctx, instance) }).Should(MatchRegexp(`^True/Ready at 1: .*; 2 tests passed$`))
		Expect(testSuccess(ctx, instance)).To(Equal("True/TestSucceeded: 2 tests passed"))
		Expect(jobs.Order()).To(Equal([]string{connection, data}))
		Expect(jobs.History()).To(Equal(jobs.OneAtATime()))
		Expect(exists(ctx, &batchv1.Job{}, ns, connection)).To(BeFalse(), "hook-succeeded")
		Expect(exists(ctx, &batchv1.Job{}, ns, data)).To(BeTrue())
	})

	It("fails Ready with TestFailed naming the failed Job after an upgrade, with a Warning event, and prints no Secret value", func() {
		setValues(ctx, instance, `{"failTest":true}`)
		failed := "test batch/Job " + ns + "/" + data + " failed: "
		eventually(func() string { return readyAt(ctx, instance) }).Should(HavePrefix("False/TestFailed at 2: " + failed))
		Expect(readyAt(ctx, instance)).To(ContainSubstring("BackoffLimitExceeded"))
		Expect(testSuccess(ctx, instance)).To(HavePrefix("False/TestFailed: " + failed))
		Expect(jobs.Order()).To(Equal([]string{connection, data, connection, data}), "each upgrade runs the tests once")
		eventually(func() []string { return warnings(ctx, ns, instance.Name) }).Should(ContainElement(HavePrefix("TestFailed: " + failed)))

		got, err := componenttest.GetComponent(ctx, env.Client, client.ObjectKeyFromObject(instance))
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Status.State).To(Equal(component.StateError))
		Expect(strings.Join(warnings(ctx, ns, instance.Name), "\n") + readyAt(ctx, instance)).NotTo(ContainSubstring(secretValue))
	})

	It("keeps Ready with ignoreFailures, and reports the failure in TestSuccess only", func() {
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(instance), instance)).To(Succeed())
		instance.Spec.Test.IgnoreFailures = true
		Expect(env.Client.Update(ctx, instance)).To(Succeed())
		eventually(func() string { return readyAt(ctx, instance) }).Should(MatchRegexp(
			`^True/Ready at 3: .*; test batch/Job ` + ns + "/" + data + ` failed: .* \(test failures are ignored\)$`))
		Expect(testSuccess(ctx, instance)).To(HavePrefix("False/TestFailed: test batch/Job " + ns + "/" + data + " failed: "))
		Expect(jobs.Runs(data)).To(Equal(3))
	})

	It("drops TestSuccess when tests are disabled, and runs none", func() {
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(instance), instance)).To(Succeed())
		instance.Spec.Test = nil
		instance.Spec.Values = nil
		Expect(env.Client.Update(ctx, instance)).To(Succeed())
		eventually(func() string { return readyAt(ctx, instance) }).Should(HavePrefix("True/Ready at 4: "))
		Expect(testSuccess(ctx, instance)).To(Equal("absent"))
		Expect(jobs.Runs(data)).To(Equal(3))
	})

	It("deletes the tests that stayed with the Component", func() {
		Expect(env.Client.Delete(ctx, instance)).To(Succeed())
		eventually(func() string { return readyAt(ctx, instance) }).Should(Equal("gone"))
		Expect(exists(ctx, &batchv1.Job{}, ns, data)).To(BeFalse())
		Expect(exists(ctx, &corev1.ConfigMap{}, ns, "op-app")).To(BeFalse())
	})
})

// testSuccess returns the TestSuccess condition as "Status/Reason: message",
// or "absent".
func testSuccess(ctx context.Context, c *v1alpha1.Component) string {
	GinkgoHelper()
	got, err := componenttest.GetComponent(ctx, env.Client, client.ObjectKeyFromObject(c))
	Expect(err).NotTo(HaveOccurred())
	cond := meta.FindStatusCondition(got.Status.Conditions, component.ConditionTestSuccess)
	if cond == nil {
		return "absent"
	}
	return string(cond.Status) + "/" + cond.Reason + ": " + cond.Message
}

// warnings returns the Warning events about a Component as "reason: note".
func warnings(ctx context.Context, namespace, name string) []string {
	GinkgoHelper()
	var list eventsv1.EventList
	Expect(env.Client.List(ctx, &list, client.InNamespace(namespace))).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.Type == corev1.EventTypeWarning && e.Regarding.Kind == "Component" && e.Regarding.Name == name {
			out = append(out, e.Reason+": "+e.Note)
		}
	}
	return out
}
