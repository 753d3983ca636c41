package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// readinessTimeout bounds what the controllers and the operator do within
// seconds, with room for a loaded machine.
const readinessTimeout = 2 * time.Minute

// Readiness as a user sees it, against the real Deployment, ReplicaSet and
// Job controllers and pods that kwok runs: the operator's binary with the
// chart's RBAC, and the wavekit command line, applying the sources
// testdata/rollout (a Deployment in wave 1, a ConfigMap in wave 2) and
// testdata/migration (a Job in wave 1, a ConfigMap in wave 2).
var _ = Describe("readiness against real controllers", Ordered, func() {
	var (
		env        *testcluster.Env
		ctx        = context.Background()
		kubeconfig string
	)

	BeforeAll(func() {
		env = startControlPlaneWith(testcluster.Options{Controllers: true})
		startWorkloadOperator(ctx, env, "rollout", "migration")
		kubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())
	})

	Context("a rolling update in wave 1", func() {
		It("writes wave 2 only once the new ReplicaSet is available, through the operator", func() {
			ns := createNamespace(ctx, env, "rollout-operator")
			c := createComponent(ctx, env, ns, "web", "rollout", map[string]any{"version": "1"})
			Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(readinessTimeout).Should(Equal("True/Ready"))

			log := startEventLog(ctx, env, ns)
			changed := c.DeepCopy()
			changed.Spec.Values = jsonValues(map[string]any{"version": "2"})
			Expect(env.Client.Patch(ctx, changed, client.MergeFrom(c))).To(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
				g.Expect(c.Status.ObservedGeneration).To(Equal(c.Generation))
				g.Expect(readyReason(ctx, env, c)).To(Equal("True/Ready"))
			}).WithTimeout(readinessTimeout).Should(Succeed())

			expectRolloutBeforeWave2(log.entries(), "web", "example.invalid/app:1", "example.invalid/app:2",
				"web-settings", map[string]string{"version": "2"})
		})

		It("writes wave 2 only once the new ReplicaSet is available, through wavekit apply --wait", func() {
			ns := createNamespace(ctx, env, "rollout-cli")
			apply := wavekitApply(ctx, kubeconfig, ns, "web", "rollout", "--wait", "--timeout", "2m")
			Expect(apply("--set", "version=1")).To(HaveField("Code", 0))

			log := startEventLog(ctx, env, ns)
			result := apply("--set", "version=2")
			Expect(result.Code).To(BeZero(), "stderr: %s", result.Stderr)
			// Between these lines, one for each step of the rollout that a pass saw.
			Expect(result.Stdout).To(And(
				HavePrefix("wave 1: 0/1 ready, waiting for apps/Deployment rollout-cli/web: Updating, InProgress: Deployment generation is 2, but latest observed generation is 1\n"),
				HaveSuffix("\nwave 1: 1/1 ready\nwave 2: 1/1 ready\nrelease rollout-cli/web is ready: 2 objects in 2 waves (revision 2)\n")))

			expectRolloutBeforeWave2(log.entries(), "web", "example.invalid/app:1", "example.invalid/app:2",
				"web-settings", map[string]string{"version": "2"})
		})
	})

	Context("a Deployment that never becomes available", func() {
		It("holds wave 1 and names the Deployment and its state, through the operator", func() {
			ns := createNamespace(ctx, env, "stuck-operator")
			c := createComponent(ctx, env, ns, "web", "rollout", map[string]any{"notReady": true})

			Eventually(func() string { return componentReport(ctx, env, c) }).WithTimeout(readinessTimeout).Should(Equal(
				"Ready=False Processing: waiting for wave 1: apps/Deployment stuck-operator/web: Creating, InProgress\n" +
					"state Processing\n" +
					"apps/Deployment stuck-operator/web: Creating, InProgress\n" +
					"ConfigMap stuck-operator/web-settings: Scheduled\n"))
			expectAbsent(ctx, env, &corev1.ConfigMap{}, client.ObjectKey{Namespace: ns, Name: "web-settings"})
		})

		It("holds wave 1 and names the Deployment and why, through wavekit apply --wait and wavekit status", func() {
			ns := createNamespace(ctx, env, "stuck-cli")
			apply := wavekitApply(ctx, kubeconfig, ns, "web", "rollout", "--set", "notReady=true")
			expectAppliedUpToWave1(apply(), "release stuck-cli/web is applied up to wave 1 and waits for apps/Deployment stuck-cli/web: Creating, InProgress: ")
			waitForRollout(ctx, env, ns, "web")

			Expect(apply("--wait", "--timeout", "5s")).To(Equal(exit{Code: 1,
				Stdout: "wave 1: 0/1 ready, waiting for apps/Deployment stuck-cli/web: Creating, InProgress: Available: 0/3\n",
				Stderr: "error: release stuck-cli/web: timed out after 5s in wave 1 waiting for apps/Deployment stuck-cli/web: Creating, InProgress: Available: 0/3\n",
			}))
			Expect(wavekitStatus(ctx, kubeconfig, ns, "web")).To(Equal(`Release:   stuck-cli/web
Source:    TESTDATA/rollout
Revision:  1
State:     Progressing
Message:   waiting in wave 1 for apps/Deployment stuck-cli/web: Creating, InProgress: Available: 0/3
Updated:   TIME

WAVE  OBJECT                            PHASE      LIVE
1     apps/Deployment stuck-cli/web     Creating   InProgress
2     ConfigMap stuck-cli/web-settings  Scheduled  NotFound
`))
			expectAbsent(ctx, env, &corev1.ConfigMap{}, client.ObjectKey{Namespace: ns, Name: "web-settings"})
		})

		It("fails wave 1 once the Deployment's progress deadline passes, through the operator", func() {
			ns := createNamespace(ctx, env, "late-operator")
			c := createComponent(ctx, env, ns, "web", "rollout", map[string]any{"notReady": true, "progressDeadlineSeconds": 10})

			set := waitForDeadline(ctx, env, ns, "web")
			Eventually(func() string { return componentReport(ctx, env, c) }).WithTimeout(readinessTimeout).Should(Equal(
				"Ready=False Error: apps/Deployment late-operator/web failed: Failed: ProgressDeadlineExceeded: ReplicaSet \"" + set + "\" has timed out progressing.\n" +
					"state Error\n" +
					"apps/Deployment late-operator/web: Error, Failed: ProgressDeadlineExceeded: ReplicaSet \"" + set + "\" has timed out progressing.\n" +
					"ConfigMap late-operator/web-settings: Scheduled\n"))
			expectAbsent(ctx, env, &corev1.ConfigMap{}, client.ObjectKey{Namespace: ns, Name: "web-settings"})
		})

		It("fails wave 1 once the Deployment's progress deadline passes, through wavekit apply --wait and wavekit status", func() {
			ns := createNamespace(ctx, env, "late-cli")
			apply := wavekitApply(ctx, kubeconfig, ns, "web", "rollout", "--set", "notReady=true", "--set", "progressDeadlineSeconds=10")
			expectAppliedUpToWave1(apply(), "release late-cli/web is applied up to wave 1 and waits for apps/Deployment late-cli/web: Creating, InProgress: ")
			set := waitForDeadline(ctx, env, ns, "web")

			failure := `apps/Deployment late-cli/web failed: Failed: ProgressDeadlineExceeded: ReplicaSet "` + set + `" has timed out progressing.`
			Expect(apply("--wait", "--timeout", "2m")).To(Equal(exit{Code: 1, Stdout: "wave 1: 0/1 ready\n", Stderr: "error: " + failure + "\n"}))
			Expect(wavekitStatus(ctx, kubeconfig, ns, "web")).To(Equal(`Release:   late-cli/web
Source:    TESTDATA/rollout
Revision:  1
State:     Failed
Message:   ` + failure + `
Updated:   TIME

WAVE  OBJECT                           PHASE      LIVE
1     apps/Deployment late-cli/web     Error      Failed
2     ConfigMap late-cli/web-settings  Scheduled  NotFound
`))
			expectAbsent(ctx, env, &corev1.ConfigMap{}, client.ObjectKey{Namespace: ns, Name: "web-settings"})
		})
	})

	Context("a Job whose pod fails", func() {
		It("fails wave 1 with the Job's message, through the operator", func() {
			ns := createNamespace(ctx, env, "failing-operator")
			c := createComponent(ctx, env, ns, "db", "migration", map[string]any{"fail": true})

			Eventually(func() string { return componentReport(ctx, env, c) }).WithTimeout(readinessTimeout).Should(Equal(
				"Ready=False Error: batch/Job failing-operator/db-migrate failed: Failed: BackoffLimitExceeded: Job has reached the specified backoff limit\n" +
					"state Error\n" +
					"batch/Job failing-operator/db-migrate: Error, Failed: BackoffLimitExceeded: Job has reached the specified backoff limit\n" +
					"ConfigMap failing-operator/db-settings: Scheduled\n"))
			expectAbsent(ctx, env, &corev1.ConfigMap{}, client.ObjectKey{Namespace: ns, Name: "db-settings"})
		})

		It("fails wave 1 with the Job's message, through wavekit apply --wait and wavekit status", func() {
			ns := createNamespace(ctx, env, "failing-cli")
			apply := wavekitApply(ctx, kubeconfig, ns, "db", "migration", "--set", "fail=true")

			failure := "batch/Job failing-cli/db-migrate failed: Failed: BackoffLimitExceeded: Job has reached the specified backoff limit"
			result := apply("--wait", "--timeout", "2m")
			Expect(result.Code).To(Equal(1))
			Expect(result.Stderr).To(Equal("error: " + failure + "\n"))
			// Progress lines follow the Job's status as it changes, as fast as the
			// controllers go; the first and the last are certain.
			Expect(result.Stdout).To(And(HavePrefix("wave 1: 0/1 ready, waiting for batch/Job failing-cli/db-migrate: Creating, InProgress: "),
				HaveSuffix("\nwave 1: 0/1 ready\n")))
			Expect(wavekitStatus(ctx, kubeconfig, ns, "db")).To(Equal(`Release:   failing-cli/db
Source:    TESTDATA/migration
Revision:  1
State:     Failed
Message:   ` + failure + `
Updated:   TIME

WAVE  OBJECT                             PHASE      LIVE
1     batch/Job failing-cli/db-migrate   Error      Failed
2     ConfigMap failing-cli/db-settings  Scheduled  NotFound
`))
			expectAbsent(ctx, env, &corev1.ConfigMap{}, client.ObjectKey{Namespace: ns, Name: "db-settings"})
		})
	})
})

// waitForRollout waits until the Deployment controller has given Deployment
// name its 3 pods, available or not.
func waitForRollout(ctx context.Context, env *testcluster.Env, ns, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		var d appsv1.Deployment
		g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &d)).To(Succeed())
		g.Expect(d.Status.ObservedGeneration).To(Equal(d.Generation))
		g.Expect(d.Status.Replicas).To(Equal(int32(3)))
		g.Expect(d.Status.UpdatedReplicas).To(Equal(int32(3)))
	}).WithTimeout(readinessTimeout).Should(Succeed())
}

// waitForDeadline waits until the Deployment controller has declared that
// Deployment name exceeded its progress deadline, and returns the name of
// its ReplicaSet, which the condition's message names.
func waitForDeadline(ctx context.Context, env *testcluster.Env, ns, name string) string {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		var d appsv1.Deployment
		g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &d)).To(Succeed())
		g.Expect(d.Status.Conditions).To(ContainElement(And(HaveField("Type", appsv1.DeploymentProgressing),
			HaveField("Status", corev1.ConditionFalse), HaveField("Reason", "ProgressDeadlineExceeded"))))
	}).WithTimeout(readinessTimeout).Should(Succeed())
	var sets appsv1.ReplicaSetList
	Expect(env.Client.List(ctx, &sets, client.InNamespace(ns), client.MatchingLabels{"app": name})).To(Succeed())
	Expect(sets.Items).To(HaveLen(1))
	return sets.Items[0].Name
}

// componentReport is what c's status says: its Ready condition and state,
// and each inventory item's phase and status.
func componentReport(ctx context.Context, env *testcluster.Env, c *v1alpha1.Component) string {
	GinkgoHelper()
	var got v1alpha1.Component
	Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), &got)).To(Succeed())
	var b strings.Builder
	if cond := got.Status.ReadyCondition(); cond != nil {
		fmt.Fprintf(&b, "Ready=%s %s: %s\n", cond.Status, cond.Reason, cond.Message)
	}
	fmt.Fprintf(&b, "state %s\n", got.Status.State)
	for _, item := range got.Status.Inventory {
		fmt.Fprintf(&b, "%s: %s", item.String(), item.Phase)
		if item.Status != "" {
			fmt.Fprintf(&b, ", %s", item.Status)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// workloadRules are the chart's rbac.extraRules for what testdata/rollout
// and testdata/migration deploy, granted as a user would grant them.
func workloadRules() []any {
	verbs := []any{"get", "list", "watch", "create", "update", "patch", "delete"}
	return []any{
		map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": verbs},
		map[string]any{"apiGroups": []any{"apps"}, "resources": []any{"deployments"}, "verbs": verbs},
		map[string]any{"apiGroups": []any{"batch"}, "resources": []any{"jobs"}, "verbs": verbs},
	}
}

// startWorkloadOperator runs the operator's binary with the chart's RBAC
// and workloadRules, serving the testdata sources named.
func startWorkloadOperator(ctx context.Context, env *testcluster.Env, sources ...string) {
	GinkgoHelper()
	binary := buildOperatorBinary()
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wavekit-system"}})).To(Succeed())
	applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{"rbac": map[string]any{"extraRules": workloadRules()}})
	var args []string
	for _, source := range sources {
		args = append(args, "--source", source+"="+testdataSource(source))
	}
	startOperatorBinary(binary, serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator"), args...)
}

// testdataSource returns the directory of the source name in testdata.
func testdataSource(name string) string {
	return filepath.Join(testcluster.ModuleRoot(), "test", "e2e", "testdata", name)
}

// createNamespace creates the namespace name.
func createNamespace(ctx context.Context, env *testcluster.Env, name string) string {
	GinkgoHelper()
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
	return name
}

// createComponent creates a Component of source with values in ns.
func createComponent(ctx context.Context, env *testcluster.Env, ns, name, source string, values map[string]any) *v1alpha1.Component {
	GinkgoHelper()
	c := &v1alpha1.Component{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1alpha1.ComponentSpec{Source: source, Values: jsonValues(values)},
	}
	Expect(env.Client.Create(ctx, c)).To(Succeed())
	return c
}

func jsonValues(values map[string]any) *apiextensionsv1.JSON {
	GinkgoHelper()
	raw, err := json.Marshal(values)
	Expect(err).NotTo(HaveOccurred())
	return &apiextensionsv1.JSON{Raw: raw}
}

// runWavekit runs the wavekit command line in this process against the
// cluster of kubeconfig and returns its exit code, standard output and
// standard error.
func runWavekit(ctx context.Context, kubeconfig string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Run(ctx, append([]string{"--kubeconfig", kubeconfig}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// expectAppliedUpToWave1 asserts that apply without --wait returned once
// wave 1 waited, saying so with prefix and what the Deployment's status was
// at that moment.
func expectAppliedUpToWave1(result exit, prefix string) {
	GinkgoHelper()
	Expect(result.Code).To(BeZero(), "stderr: %s", result.Stderr)
	Expect(result.Stderr).To(BeEmpty())
	Expect(result.Stdout).To(MatchRegexp(`(?m)^%s[^\n]+; run apply again or use --wait\n\z`, regexp.QuoteMeta(prefix)))
}

// exit is what a run of the command line ended with.
type exit struct {
	Code           int
	Stdout, Stderr string
}

// wavekitApply returns a function that runs wavekit apply of the testdata
// source as release name in ns with args and then its own arguments, with the
// operator's annotation prefix.
func wavekitApply(ctx context.Context, kubeconfig, ns, name, source string, args ...string) func(...string) exit {
	return func(more ...string) exit {
		command := append([]string{"apply", name, testdataSource(source), "-n", ns, "--operator-name", "e2e.wavekit.dev"}, args...)
		code, stdout, stderr := runWavekit(ctx, kubeconfig, append(command, more...)...)
		return exit{Code: code, Stdout: stdout, Stderr: stderr}
	}
}

// updatedLine is the line of wavekit status that says when the release was
// written.
var updatedLine = regexp.MustCompile(`(?m)^Updated: .*$`)

// wavekitStatus returns what wavekit status prints for release name in ns,
// with the time of its last update and its source directory replaced by
// placeholders.
func wavekitStatus(ctx context.Context, kubeconfig, ns, name string) string {
	GinkgoHelper()
	code, stdout, stderr := runWavekit(ctx, kubeconfig, "status", name, "-n", ns)
	Expect(code).To(BeZero(), "wavekit status: %s", stderr)
	stdout = updatedLine.ReplaceAllString(stdout, "Updated:   TIME")
	return strings.ReplaceAll(stdout, testdataSource(""), "TESTDATA")
}

// expectAbsent asserts that the object of key and obj's type does not exist.
func expectAbsent(ctx context.Context, env *testcluster.Env, obj client.Object, key client.ObjectKey) {
	GinkgoHelper()
	err := env.Client.Get(ctx, key, obj)
	Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%T %s exists (%v)", obj, key, err)
}
