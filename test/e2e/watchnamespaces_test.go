package e2e_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The chart installed with watchNamespaces and without the lockdown: the
// operator has a Role in each watched namespace and nothing of the kinds its
// sources deploy anywhere else, and runs as its own identity (no
// defaultServiceAccount). It serves the Components of the watched namespace
// and says nothing to the others.
var _ = Describe("the operator of the chart with watchNamespaces and no lockdown", Ordered, func() {
	const watched, other = "team-watched", "team-other"
	var (
		env      *testcluster.Env
		operator *gexec.Session
		ctx      = context.Background()
	)

	BeforeAll(func() {
		env = startControlPlane()
		for _, ns := range []string{"wavekit-system", watched, other} {
			createNamespace(ctx, env, ns)
		}
		applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{
			"watchNamespaces": []any{watched}, "rbac": map[string]any{"extraRules": webSourceRules()}})
		// The flags the chart's Deployment gives it for these values.
		operator = startOperatorBinary(buildOperatorBinary(), serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator"),
			"--watch-namespaces", watched, "--render-key-secret", "wavekit-system/wavekit-component-operator-render-key")
	})

	It("makes a Component of a watched namespace Ready, its objects applied", func() {
		c := createComponent(ctx, env, watched, "site", "web", map[string]any{"greeting": "watched"})
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(time.Minute).Should(Equal("True/Ready"), componentOutput(operator))
		var cm corev1.ConfigMap
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: watched, Name: "site-config"}, &cm)).To(Succeed())
		Expect(cm.Data).To(HaveKeyWithValue("greeting", "watched"))
	})

	It("ignores a Component of another namespace: no finalizer, no status, no objects", func() {
		c := createComponent(ctx, env, other, "site", "web", map[string]any{"greeting": "other"})
		Consistently(func() map[string]any {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("Component"))
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), got)).To(Succeed())
			return map[string]any{"finalizers": got.GetFinalizers(), "status": got.Object["status"]}
		}).WithTimeout(5*time.Second).Should(Equal(map[string]any{"finalizers": []string(nil), "status": nil}),
			"no finalizer, no status written")
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: other, Name: "site-config"}, &corev1.ConfigMap{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "nothing applied outside the watched namespace")
	})

	It("deletes the watched Component's objects with it", func() {
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: watched, Name: "site"}}
		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(time.Minute).Should(Equal("gone"), componentOutput(operator))
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: watched, Name: "site-config"}, &corev1.ConfigMap{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue())
		Expect(operator.Err).NotTo(gbytes.Say("forbidden"), "the operator asked for nothing its Roles do not grant")
	})
})

// componentOutput is the operator's log so far, for a failure message.
func componentOutput(session *gexec.Session) func() string {
	return func() string { return string(session.Err.Contents()) }
}
