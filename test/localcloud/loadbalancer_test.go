package localcloud_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// addressTimeout is how soon a Service gets its address: within a second
// on an idle machine, with room for a loaded one.
const addressTimeout = 5 * time.Second

var _ = Describe("load balancers", func() {
	ctx := context.Background()

	It("gives each Service of type LoadBalancer an address of its own, gone with the Service", func() {
		ns := newNamespace(ctx, "lb")
		first := newLoadBalancer(ns, "first", nil)
		created := time.Now()
		Expect(env.Client.Create(ctx, first)).To(Succeed())
		address := expectAddress(ctx, first)
		GinkgoWriter.Printf("Service %s/first got address %s after %s\n", ns, address, time.Since(created).Round(time.Millisecond))
		Expect(address).To(MatchRegexp(`^127\.0\.\d+\.\d+$`))

		second := newLoadBalancer(ns, "second", nil)
		Expect(env.Client.Create(ctx, second)).To(Succeed())
		Expect(expectAddress(ctx, second)).NotTo(Equal(address))

		Expect(env.Client.Delete(ctx, first)).To(Succeed())
		eventually(func() bool {
			return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(first), first))
		}).Should(BeTrue())
	})

	It("gives no address to a Service of another loadBalancerClass", func() {
		ns := newNamespace(ctx, "lb-class")
		svc := newLoadBalancer(ns, "elsewhere", ptr.To("example.com/elsewhere"))
		Expect(env.Client.Create(ctx, svc)).To(Succeed())
		Consistently(func() ([]corev1.LoadBalancerIngress, error) {
			err := env.Client.Get(ctx, client.ObjectKeyFromObject(svc), svc)
			return svc.Status.LoadBalancer.Ingress, err
		}).WithTimeout(2 * time.Second).Should(BeEmpty())
	})
})

// newLoadBalancer is a Service of type LoadBalancer of class, nil for the
// default one.
func newLoadBalancer(ns, name string, class *string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{
			Type:              corev1.ServiceTypeLoadBalancer,
			LoadBalancerClass: class,
			Selector:          map[string]string{"app": name},
			Ports:             []corev1.ServicePort{{Name: "http", Port: 80}},
		},
	}
}

// expectAddress waits until svc has one load balancer address and returns
// it.
func expectAddress(ctx context.Context, svc *corev1.Service) string {
	GinkgoHelper()
	Eventually(func() ([]corev1.LoadBalancerIngress, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(svc), svc)
		return svc.Status.LoadBalancer.Ingress, err
	}).WithTimeout(addressTimeout).WithPolling(50 * time.Millisecond).Should(HaveLen(1))
	return svc.Status.LoadBalancer.Ingress[0].IP
}
