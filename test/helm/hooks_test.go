package helm_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
)

// The admission chart is shaped like ingress-nginx and has the hook patterns
// of podinfo and gatekeeper too (see its Chart.yaml); each spec installs,
// upgrades or deletes it as a Component and compares with what Helm does,
// while the cluster's controllers run the Jobs and roll out the Deployment.
var _ = Describe("a chart with hooks", Ordered, func() {
	var (
		ctx      = context.Background()
		ns       string
		jobs     *jobObserver
		instance *v1alpha1.Component
	)

	BeforeAll(func() {
		ns = newNamespace(ctx, "hooks")
		jobs = observeJobs(ns)
		instance = &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "adm"},
			Spec: v1alpha1.ComponentSpec{Source: "admission"}}
	})

	It("installs as helm install does: hook accounts live until the last hook that needs them, upgrade hooks do not run", func() {
		Expect(env.Client.Create(ctx, instance)).To(Succeed())
		eventually(func() string { return readyAt(ctx, instance) }).Should(HavePrefix("True/Ready at 1:"))

		expectInstalled(ctx, ns, "adm")
		eventually(jobs.Order).Should(Equal([]string{"adm-admission-create", "adm-admission-patch"}),
			"pre-install before post-install, and no upgrade hook during the install")
		eventually(jobs.Podless).Should(BeEmpty(), "the Job controller made a pod for every hook Job")
		Expect(jobs.Missing()).To(BeEmpty(), "every hook Job found its ServiceAccount")
		Expect(exists(ctx, &corev1.ServiceAccount{}, ns, "adm-admission")).To(BeFalse(), "hook-succeeded: gone once every hook succeeded")
		Expect(exists(ctx, &batchv1.Job{}, ns, "adm-admission-create")).To(BeFalse())
		Expect(exists(ctx, &batchv1.Job{}, ns, "adm-admission-patch")).To(BeFalse())

		var deployment appsv1.Deployment
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "adm"}, &deployment)).To(Succeed())
		Expect(deployment.Spec.Selector.MatchLabels).To(HaveKeyWithValue("heritage", "Helm"))
	})

	It("runs the upgrade hooks and the install-and-upgrade hooks once on every upgrade, also when they did not change", func() {
		upgrades := []string{`{"image":"registry.example/app:2.0"}`, `{"image":"registry.example/app:2.0","message":"changed"}`}
		for i, values := range upgrades {
			setValues(ctx, instance, values)
			eventually(func() string { return readyAt(ctx, instance) }).Should(HavePrefix(fmt.Sprintf("True/Ready at %d:", i+2)))
			runs := i + 1
			eventually(func() map[string]int {
				return map[string]int{
					"adm-pre-upgrade": jobs.Runs("adm-pre-upgrade"), "adm-post-upgrade": jobs.Runs("adm-post-upgrade"),
					"adm-admission-create": jobs.Runs("adm-admission-create"), "adm-admission-patch": jobs.Runs("adm-admission-patch"),
				}
			}).Should(Equal(map[string]int{
				"adm-pre-upgrade": runs, "adm-post-upgrade": runs,
				"adm-admission-create": runs + 1, "adm-admission-patch": runs + 1,
			}), "Jobs in the order they ran: %v", jobs.Order())
		}
		eventually(jobs.Podless).Should(BeEmpty())
		Expect(jobs.Missing()).To(BeEmpty())
		order := jobs.Order()
		Expect(order[len(order)-4:]).To(Equal([]string{"adm-admission-create", "adm-pre-upgrade", "adm-admission-patch", "adm-post-upgrade"}),
			"the hooks of one event in weight order, pre before post")
		Expect(exists(ctx, &corev1.ServiceAccount{}, ns, "adm-admission")).To(BeFalse())
		Expect(exists(ctx, &batchv1.Job{}, ns, "adm-post-upgrade")).To(BeFalse())
		expectRolledOut(ctx, ns, "adm", "registry.example/app:2.0")
	})

	It("deletes everything it installed, and the garbage collector what the controllers made of it", func() {
		Expect(env.Client.Delete(ctx, instance)).To(Succeed())
		eventually(func() string { return readyAt(ctx, instance) }).Should(Equal("gone"))
		eventually(func() []string { return leftovers(ctx, ns, "adm") }).Should(BeEmpty())
	})

	It("ran each hook Job to a succeeded pod before the next one was created", func() {
		Expect(jobs.Order()).NotTo(BeEmpty(), "the specs before this one ran hook Jobs")
		eventually(jobs.History).Should(Equal(jobs.OneAtATime()))
	})
})

// readyAt returns "Status/Reason at observedGeneration" of the Component's
// Ready condition, or "gone".
func readyAt(ctx context.Context, c *v1alpha1.Component) string {
	GinkgoHelper()
	got, err := componenttest.GetComponent(ctx, env.Client, client.ObjectKeyFromObject(c))
	Expect(err).NotTo(HaveOccurred())
	if got == nil {
		return "gone"
	}
	cond := got.Status.ReadyCondition()
	if cond == nil || got.Status.ObservedGeneration != got.Generation {
		return "not observed"
	}
	return fmt.Sprintf("%s/%s at %d: %s", cond.Status, cond.Reason, cond.ObservedGeneration, cond.Message)
}

// setValues replaces the Component's values.
func setValues(ctx context.Context, c *v1alpha1.Component, values string) {
	GinkgoHelper()
	Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
	c.Spec.Values = &apiextensionsv1.JSON{Raw: []byte(values)}
	Expect(env.Client.Update(ctx, c)).To(Succeed())
}

// exists tells whether the object of obj's type is there.
func exists(ctx context.Context, obj client.Object, namespace, name string) bool {
	GinkgoHelper()
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return false
	}
	Expect(err).NotTo(HaveOccurred())
	return true
}
