package e2e_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// A chart that trusts Helm to render it only at install and upgrade
// (testdata/generated: a randAlphaNum password, a genCA certificate in a
// pre-install/pre-upgrade hook Secret and in a webhook configuration's
// caBundle, a hook Job), on the whole local cluster, the operator's binary
// under its chart's RBAC with a one-second requeue.
var _ = Describe("a chart with random and generated output", Ordered, func() {
	const ns = "generated"
	var (
		env      *testcluster.Env
		ctx      = context.Background()
		metrics  string
		operator *gexec.Session
		c        *v1alpha1.Component
	)

	BeforeAll(func() {
		env = startControlPlaneWith(testcluster.Options{Controllers: true})
		createNamespace(ctx, env, ns)
		metrics, operator = startGeneratedOperator(ctx, env)
		c = &v1alpha1.Component{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"},
			Spec: v1alpha1.ComponentSpec{Source: "generated", Values: jsonValues(map[string]any{"greeting": "hello"}),
				Intervals: v1alpha1.Intervals{Requeue: &metav1.Duration{Duration: time.Second}}},
		}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(readinessTimeout).Should(Equal("True/Ready"))
	})

	// versions are the resourceVersions of what the chart rendered.
	versions := func() map[string]string {
		GinkgoHelper()
		out := map[string]string{}
		for name, obj := range map[string]client.Object{
			"app-password": &corev1.ConfigMap{}, "app-ca": &corev1.Secret{}, "app-migrate": &batchv1.Job{},
		} {
			Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj)).To(Succeed())
			out[name] = obj.GetResourceVersion()
		}
		webhook := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Name: ns + "-app"}, webhook)).To(Succeed())
		out["webhook"] = webhook.ResourceVersion
		return out
	}
	history := func() int {
		GinkgoHelper()
		got := &v1alpha1.Component{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), got)).To(Succeed())
		return len(got.Status.History)
	}
	// afterPasses waits until the operator has finished n more Reconciles.
	afterPasses := func(n float64) {
		GinkgoHelper()
		seen := reconcilesDone(metrics)
		Eventually(func() float64 { return reconcilesDone(metrics) }).WithTimeout(readinessTimeout).Should(BeNumerically(">=", seen+n))
	}

	It("writes nothing across five requeues once Ready, and its history does not grow", func() {
		before, entries, writes := versions(), history(), objectWrites(metrics, ns, "app")
		afterPasses(5)
		Expect(versions()).To(Equal(before))
		Expect(history()).To(Equal(entries))
		Expect(objectWrites(metrics, ns, "app")).To(Equal(writes))
		expectCertificateMatches(ctx, env, ns)
	})

	It("puts a drifted password back to the value it applied, not a new random one", func() {
		cm := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "app-password"}, cm)).To(Succeed())
		applied := cm.Data["password"]
		cm.Data["password"] = "edited by hand"
		Expect(env.Client.Update(ctx, cm)).To(Succeed())
		Eventually(func() string {
			Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "app-password"}, cm)).To(Succeed())
			return cm.Data["password"]
		}).WithTimeout(readinessTimeout).Should(Equal(applied))
	})

	It("renders a change of values once, runs its hooks once, and keeps the hook's certificate and the caBundle matching", func() {
		clientset, err := kubernetes.NewForConfig(env.Config)
		Expect(err).NotTo(HaveOccurred())
		before, entries := versions(), history()
		jobs, err := clientset.BatchV1().Jobs(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=app-migrate", ResourceVersion: before["app-migrate"]})
		Expect(err).NotTo(HaveOccurred())
		defer jobs.Stop()

		got := &v1alpha1.Component{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), got)).To(Succeed())
		changed := got.DeepCopy()
		changed.Spec.Values = jsonValues(map[string]any{"greeting": "bonjour"})
		Expect(env.Client.Patch(ctx, changed, client.MergeFrom(got))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), got)).To(Succeed())
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(readyReason(ctx, env, c)).To(Equal("True/Ready"))
		}).WithTimeout(readinessTimeout).Should(Succeed())
		afterPasses(3)

		after := versions()
		for name := range before {
			Expect(after[name]).NotTo(Equal(before[name]), "%s was not rendered again by the upgrade", name)
		}
		Expect(history()).To(Equal(entries+1), "one entry for one change")
		expectCertificateMatches(ctx, env, ns)
		job := &batchv1.Job{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "app-migrate"}, job)).To(Succeed())
		Expect(createdJobs(jobs, job)).To(Equal(1), "the hook Job ran once for the upgrade")
	})

	It("rewrites nothing after the operator restarts", func() {
		before, entries := versions(), history()
		operator.Terminate().Wait(10 * time.Second)
		metrics, operator = startGeneratedOperator(ctx, env)
		afterPasses(3)
		Expect(versions()).To(Equal(before))
		Expect(history()).To(Equal(entries))
		Expect(objectWrites(metrics, ns, "app")).To(BeZero())
	})
})

// startGeneratedOperator runs the operator's binary with the chart's RBAC
// for what testdata/generated deploys, serving it, with plain-HTTP metrics
// whose base URL it returns.
func startGeneratedOperator(ctx context.Context, env *testcluster.Env) (string, *gexec.Session) {
	GinkgoHelper()
	verbs := []any{"get", "list", "watch", "create", "update", "patch", "delete"}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "wavekit-system"}, &corev1.Namespace{}); err != nil {
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wavekit-system"}})).To(Succeed())
		applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{"rbac": map[string]any{
			"extraRules": []any{
				map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps", "secrets"}, "verbs": verbs},
				map[string]any{"apiGroups": []any{"batch"}, "resources": []any{"jobs"}, "verbs": verbs},
			},
			"extraClusterRules": []any{
				map[string]any{"apiGroups": []any{"admissionregistration.k8s.io"}, "resources": []any{"validatingwebhookconfigurations"}, "verbs": verbs},
			},
		}})
	}
	metrics := "http://" + freeLocalAddress()
	session := startOperatorBinary(buildOperatorBinary(), serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator"),
		"--source", "generated="+testdataSource("generated"),
		"--metrics-bind-address", strings.TrimPrefix(metrics, "http://"), "--metrics-secure=false")
	Eventually(func() (int, error) { return getMetrics(metrics, "") }).WithTimeout(60 * time.Second).Should(Equal(200))
	return metrics, session
}

// expectCertificateMatches checks that the CA the hook Secret holds is the
// one the webhook configuration trusts: one render made both.
func expectCertificateMatches(ctx context.Context, env *testcluster.Env, ns string) {
	GinkgoHelper()
	secret := &corev1.Secret{}
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "app-ca"}, secret)).To(Succeed())
	webhook := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	Expect(env.Client.Get(ctx, client.ObjectKey{Name: ns + "-app"}, webhook)).To(Succeed())
	Expect(webhook.Webhooks).To(HaveLen(1))
	Expect(string(webhook.Webhooks[0].ClientConfig.CABundle)).To(Equal(string(secret.Data["ca.crt"])),
		"the caBundle is not the hook Secret's certificate")
	Expect(string(secret.Data["ca.crt"])).To(HavePrefix("-----BEGIN CERTIFICATE-----"))
}

// createdJobs returns how many Jobs a watch saw created up to and with
// the creation of current, which it waits for: a watch delivers events in
// order, so none created before it is missed.
func createdJobs(w watch.Interface, current *batchv1.Job) int {
	GinkgoHelper()
	created := 0
	Eventually(w.ResultChan()).WithTimeout(readinessTimeout).Should(Receive(Satisfy(func(e watch.Event) bool {
		if e.Type != watch.Added {
			return false
		}
		created++
		job, ok := e.Object.(*batchv1.Job)
		return ok && job.UID == current.UID
	})))
	return created
}

var (
	reconcilesMetric   = regexp.MustCompile(`(?m)^wavekit_reconciles_total\{[^}]*\} (\S+)$`)
	objectWritesMetric = `(?m)^wavekit_component_object_writes_total\{name="%s",namespace="%s",operator="[^"]+"\} (\S+)$`
)

// reconcilesDone is the number of Reconciles the operator finished.
func reconcilesDone(base string) float64 {
	GinkgoHelper()
	total := 0.0
	for _, m := range reconcilesMetric.FindAllStringSubmatch(readMetrics(base, ""), -1) {
		n, err := strconv.ParseFloat(m[1], 64)
		Expect(err).NotTo(HaveOccurred())
		total += n
	}
	return total
}

// objectWrites is the number of object writes the operator made for the
// Component ns/name.
func objectWrites(base, ns, name string) float64 {
	GinkgoHelper()
	m := regexp.MustCompile(fmt.Sprintf(objectWritesMetric, regexp.QuoteMeta(name), regexp.QuoteMeta(ns))).FindStringSubmatch(readMetrics(base, ""))
	if m == nil {
		return 0
	}
	n, err := strconv.ParseFloat(m[1], 64)
	Expect(err).NotTo(HaveOccurred())
	return n
}
