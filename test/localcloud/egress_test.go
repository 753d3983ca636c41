package localcloud_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/internal/testing/egresstest"
)

// The cluster of pkg/testenv is a closed box: its kube-apiserver, a child
// of this process, calls webhooks and APIServices through the egress gate
// that runs in this process, which refuses everything but loopback.
var _ = Describe("the egress gate", func() {
	ctx := context.Background()

	It("installs webhooks and an APIService through the operator while kube-apiserver connects to nothing off the machine, and the Component says why it waits", func() {
		ns := newNamespace(ctx, "egress")
		pid, err := env.APIServerPID()
		Expect(err).NotTo(HaveOccurred())
		expectClosed := egresstest.TraceAPIServer(pid, env.EgressSocket())

		c := &v1alpha1.Component{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "egress"},
			Spec:       v1alpha1.ComponentSpec{Source: "egress"},
		}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		DeferCleanup(func() { deleteComponent(ctx, c) })
		egresstest.ExpectRefusals(ctx, env.Config, ns)
		eventually(func() (string, error) {
			return componenttest.ReadyCondition(ctx, env.Client, client.ObjectKeyFromObject(c))
		}).Should(And(HavePrefix("False/"), ContainSubstring("APIService "+egresstest.APIServiceName(ns)),
			ContainSubstring(egresstest.APIServiceRefusal(ns))))
		expectClosed()
	})
})

// deleteComponent deletes c and waits until it is gone, with what it
// applied: an APIService that nothing serves makes the API server's
// discovery fail for every client of the cluster while it exists.
func deleteComponent(ctx context.Context, c *v1alpha1.Component) {
	GinkgoHelper()
	Expect(client.IgnoreNotFound(env.Client.Delete(ctx, c))).To(Succeed())
	eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(c), &v1alpha1.Component{}))
	}).Should(BeTrue())
}
