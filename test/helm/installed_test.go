package helm_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// expectInstalled checks what the admission chart's release in namespace
// made, once it is Ready: the controller rolled out on the fake Nodes, its
// Services, and the webhook configuration as the chart renders it.
func expectInstalled(ctx context.Context, namespace, release string) {
	GinkgoHelper()
	expectRolledOut(ctx, namespace, release, "registry.example/app:1.0")
	for _, name := range []string{release, release + "-admission"} {
		Expect(exists(ctx, &corev1.Service{}, namespace, name)).To(BeTrue(), "Service %s", name)
	}
	var webhooks admissionregistrationv1.ValidatingWebhookConfiguration
	Expect(env.Client.Get(ctx, client.ObjectKey{Name: webhookName(namespace, release)}, &webhooks)).To(Succeed())
	// The post-install Job of ingress-nginx writes the CA of the certificate
	// that the pre-install Job made into caBundle. kwok runs no container, so
	// both Jobs succeed without doing anything and caBundle stays empty.
	Expect(webhooks.Webhooks).To(ConsistOf(And(
		HaveField("Name", "validate.nginx.ingress.kubernetes.io"),
		HaveField("MatchPolicy", ptr.To(admissionregistrationv1.Equivalent)),
		HaveField("FailurePolicy", ptr.To(admissionregistrationv1.Fail)),
		HaveField("SideEffects", ptr.To(admissionregistrationv1.SideEffectClassNone)),
		HaveField("AdmissionReviewVersions", Equal([]string{"v1"})),
		HaveField("Rules", ConsistOf(And(
			HaveField("Operations", ConsistOf(admissionregistrationv1.Create, admissionregistrationv1.Update)),
			HaveField("Rule.APIGroups", Equal([]string{"networking.k8s.io"})),
			HaveField("Rule.APIVersions", Equal([]string{"v1"})),
			HaveField("Rule.Resources", Equal([]string{"ingresses"})),
		))),
		HaveField("ClientConfig.Service.Namespace", namespace),
		HaveField("ClientConfig.Service.Name", release+"-admission"),
		HaveField("ClientConfig.Service.Path", ptr.To("/networking/v1/ingresses")),
		HaveField("ClientConfig.CABundle", BeEmpty()),
	)))
}

// webhookName is the name of the release's ValidatingWebhookConfiguration.
func webhookName(namespace, release string) string {
	return namespace + "-" + release + "-admission"
}

// expectRolledOut checks that the Deployment controller rolled the release's
// Deployment out with image: one available replica of a ReplicaSet it
// controls, whose pod runs on a fake Node.
func expectRolledOut(ctx context.Context, namespace, release, image string) {
	GinkgoHelper()
	var deployment appsv1.Deployment
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: release}, &deployment)).To(Succeed())
	Expect(deployment.Status.ObservedGeneration).To(Equal(deployment.Generation))
	Expect(deployment.Status.UpdatedReplicas).To(Equal(int32(1)))
	Expect(deployment.Status.AvailableReplicas).To(Equal(int32(1)))

	var sets appsv1.ReplicaSetList
	Expect(env.Client.List(ctx, &sets, client.InNamespace(namespace), client.MatchingLabels{"app": release})).To(Succeed())
	var current []string
	for _, set := range sets.Items {
		Expect(metav1.IsControlledBy(&set, &deployment)).To(BeTrue(), "ReplicaSet %s", set.Name)
		if set.Spec.Template.Spec.Containers[0].Image == image && set.Status.AvailableReplicas == 1 {
			current = append(current, set.Name)
		}
	}
	Expect(current).To(HaveLen(1), "one available ReplicaSet of %s", image)

	eventually(func(g Gomega) {
		var pods corev1.PodList
		g.Expect(env.Client.List(ctx, &pods, client.InNamespace(namespace), client.MatchingLabels{"app": release})).To(Succeed())
		g.Expect(pods.Items).To(ConsistOf(And(
			HaveField("Spec.Containers", ConsistOf(HaveField("Image", image))),
			HaveField("Spec.NodeName", BeElementOf(testcluster.FakeNodes)),
			HaveField("Status.Phase", corev1.PodRunning),
		)), "the old ReplicaSet's pods are gone")
	}).Should(Succeed())
}

// leftovers names what is left of the admission chart's release in
// namespace: the objects of every kind the chart or the cluster's
// controllers made for it, except the namespace's own default
// ServiceAccount and root CA ConfigMap, and its webhook configuration.
func leftovers(ctx context.Context, namespace, release string) []string {
	GinkgoHelper()
	lists := map[string]client.ObjectList{
		"Pod": &corev1.PodList{}, "ReplicaSet": &appsv1.ReplicaSetList{}, "Deployment": &appsv1.DeploymentList{},
		"Job": &batchv1.JobList{}, "Service": &corev1.ServiceList{}, "EndpointSlice": &discoveryv1.EndpointSliceList{},
		"ServiceAccount": &corev1.ServiceAccountList{}, "Role": &rbacv1.RoleList{}, "RoleBinding": &rbacv1.RoleBindingList{},
		"ConfigMap": &corev1.ConfigMapList{}, "Secret": &corev1.SecretList{},
	}
	namespaceOwn := map[string]bool{"ServiceAccount default": true, "ConfigMap kube-root-ca.crt": true}
	var left []string
	for kind, list := range lists {
		Expect(env.Client.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		items, err := meta.ExtractList(list)
		Expect(err).NotTo(HaveOccurred())
		for _, item := range items {
			name := kind + " " + item.(client.Object).GetName()
			if !namespaceOwn[name] {
				left = append(left, name)
			}
		}
	}
	if exists(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{}, "", webhookName(namespace, release)) {
		left = append(left, "ValidatingWebhookConfiguration "+webhookName(namespace, release))
	}
	return left
}
