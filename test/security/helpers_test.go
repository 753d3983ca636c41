package security_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
)

func eventually(f any) AsyncAssertion {
	return Eventually(f).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond)
}

// rolledOut waits until the Deployment controller reports every replica of
// Deployment ns/name available: the controllers, the scheduler and kwok
// take their time on the shared cores, none of which is the operator's.
func rolledOut(ns, name string) {
	GinkgoHelper()
	Eventually(func() error {
		var d appsv1.Deployment
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &d); err != nil {
			return err
		}
		return available(&d)
	}).WithTimeout(2 * time.Minute).WithPolling(250 * time.Millisecond).Should(Succeed())
}

// available returns nil when the status of d, as its controller wrote it,
// says that every replica of d's current generation is available.
func available(d *appsv1.Deployment) error {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	if s.ObservedGeneration != d.Generation || s.UpdatedReplicas != want || s.AvailableReplicas != want || s.Replicas != want {
		return fmt.Errorf("deployment %s/%s: generation %d observed %d, replicas %d updated %d available %d of %d",
			d.Namespace, d.Name, d.Generation, s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.AvailableReplicas, want)
	}
	for _, c := range s.Conditions {
		if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
			return nil
		}
	}
	return fmt.Errorf("deployment %s/%s has no condition Available=True", d.Namespace, d.Name)
}

func createNamespace(name string) {
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
}

// tenantRules are what a tenant needs to deploy testdata/app in its namespace.
var tenantRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
	{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
}

// createTenant creates namespace ns with the lockdown's service account,
// allowed by a Role in ns alone (no cluster-wide rights at all).
func createTenant(ns string) {
	createNamespace(ns)
	Expect(env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: deployer}})).To(Succeed())
	Expect(env.Client.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: deployer}, Rules: tenantRules})).To(Succeed())
	Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: deployer},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: deployer},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: deployer}},
	})).To(Succeed())
}

func newComponent(ns, name string) *v1alpha1.Component {
	return &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ComponentSpec{Source: "app"}}
}

// readyCondition returns "Status/Reason: message", "none" or "gone".
func readyCondition(c *v1alpha1.Component) string {
	GinkgoHelper()
	cond, err := componenttest.ReadyCondition(ctx, env.Client, client.ObjectKeyFromObject(c))
	Expect(err).NotTo(HaveOccurred())
	return cond
}

// kubeconfigSecret stores a kubeconfig with one cluster "target" and one
// user "tenant" in Secret ns/name, key "value".
func kubeconfigSecret(ns, name string, cluster *clientcmdapi.Cluster, user *clientcmdapi.AuthInfo) {
	config := clientcmdapi.NewConfig()
	config.Clusters["target"] = cluster
	config.AuthInfos["tenant"] = user
	config.Contexts["target"] = &clientcmdapi.Context{Cluster: "target", AuthInfo: "tenant"}
	config.CurrentContext = "target"
	data, err := clientcmd.Write(*config)
	Expect(err).NotTo(HaveOccurred())
	Expect(env.Client.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{"value": data},
	})).To(Succeed())
}
