package receivers_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/localrepo"
)

var _ = Describe("a webhook for what a push changes", func() {
	It("asks a ComponentSet, which passes the request on to the Component of each cluster", func() {
		secret, err := env.KubeconfigSecret(teamA, "here", map[string]string{operatorName + "/cluster": "true", "fleet": "receivers"})
		Expect(err).NotTo(HaveOccurred())
		Expect(env.Client.Create(ctx, secret)).To(Succeed())
		set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "fleet"}, Spec: v1alpha1.ComponentSetSpec{
			Template:  v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "site", Namespace: "fleet-objects"}},
			Placement: &v1alpha1.Placement{ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{"fleet": "receivers"}}},
		}}
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fleet-objects"}})).To(Succeed())
		Expect(env.Client.Create(ctx, set)).To(Succeed())
		member := component(teamA, "fleet-here")
		Eventually(func() error { return env.Client.Get(ctx, client.ObjectKeyFromObject(member), member) }).WithTimeout(timeout).Should(Succeed())
		waitState(member)

		createToken(teamA, "registry-token", "Basic cmVnaXN0cnk6cHVzaA==")
		path := createReceiver(teamA, "registry", v1alpha1.ReceiverSpec{Type: v1alpha1.ReceiverHarbor,
			SecretRef: v1alpha1.LocalObjectReference{Name: "registry-token"},
			Resources: []v1alpha1.ReceiverResource{{Kind: "ComponentSet", Name: "fleet"}}})
		body := []byte(`{"type":"PUSH_ARTIFACT"}`)
		Expect(post(path, body, map[string]string{"Authorization": "Basic bm90OnRoaXM="}).code).To(Equal(http.StatusUnauthorized))
		r := post(path, body, map[string]string{"Authorization": "Basic cmVnaXN0cnk6cHVzaA=="})
		Expect(r.code).To(Equal(http.StatusOK), r.text)
		asked := handledBy(set)
		Eventually(func() string { annotation, _ := requested(member); return annotation }).WithTimeout(timeout).Should(Equal(asked))
		Expect(handledBy(member)).To(Equal(asked))
	})

	It("installs a chart version published just before the webhook at once, not at the requeue interval", func() {
		repo, err := localrepo.NewRepository()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(repo.Close)
		Expect(repo.Add(localrepo.Hello("1.0.0"))).To(Succeed())
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "hello"}, Spec: v1alpha1.ComponentSpec{
			Chart:  &v1alpha1.ChartSource{Repository: repo.URL, Name: "hello", Version: ">=1.0.0"},
			Values: &apiextensionsv1.JSON{Raw: []byte(`{"greeting":"hi"}`)},
		}}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		waitState(c)
		Expect(c.Status.Source.Revision).To(Equal("1.0.0"))

		Expect(repo.Add(localrepo.Hello("1.1.0"))).To(Succeed())
		createToken(teamA, "charts-token", "charts-secret-9")
		path := createReceiver(teamA, "charts", v1alpha1.ReceiverSpec{Type: v1alpha1.ReceiverGenericHMAC,
			SecretRef: v1alpha1.LocalObjectReference{Name: "charts-token"},
			Resources: []v1alpha1.ReceiverResource{{Kind: "Component", Name: "hello"}}})
		body := []byte(`{"chart":"hello","version":"1.1.0"}`)
		r := post(path, body, map[string]string{"X-Signature": hmacHex("charts-secret-9", body)})
		Expect(r.code).To(Equal(http.StatusOK), r.text)
		handledBy(c)
		// The default requeue interval is 10 minutes: only the request
		// makes the repository be asked again within the timeout.
		Eventually(func() (string, error) {
			var cm corev1.ConfigMap
			err := env.Client.Get(ctx, client.ObjectKey{Namespace: teamA, Name: "hello"}, &cm)
			return cm.Data["version"], err
		}).WithTimeout(timeout).Should(Equal("1.1.0"))
	})
})
