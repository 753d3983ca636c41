package reliability_test

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/faultproxy"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// A leader whose connections to kube-apiserver are slow, not gone, keeps
// its Lease: it renews on a connection of its own, which the watches' and
// the passes' traffic does not hold up, and so neither exits nor hands
// over (the soak saw a leader step down after 10 s of delayed connections,
// and its shard wait 30 s for a new one).
var _ = Describe("a leader behind slow connections", Ordered, func() {
	const (
		ns       = "slow-leader"
		identity = "replica-a"
	)
	ctx := context.Background()
	var (
		op    *binaryOperator
		proxy *faultproxy.Proxy
	)

	BeforeAll(func() {
		newNamespace(ctx, ns)
		var err error
		server, err := url.Parse(env.Config.Host)
		Expect(err).NotTo(HaveOccurred())
		proxy, err = faultproxy.Start(server.Host)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(proxy.Close)
		proxied := rest.CopyConfig(env.Config)
		proxied.Host = "https://" + proxy.Addr()
		op = newBinaryOperator()
		op.kubeconfig = filepath.Join(GinkgoT().TempDir(), "proxied.kubeconfig")
		Expect(testcluster.WriteKubeconfig(proxied, op.kubeconfig)).To(Succeed())
		op.start("--source", "recover="+testdata("configmap"), "--watch-namespaces", ns,
			"--leader-elect", "--leader-election-namespace", ns, "--leader-election-identity", identity)
		for i := range 6 {
			Expect(env.Client.Create(ctx, newComponent(ns, fmt.Sprintf("load-%d", i), "recover", map[string]any{"greeting": "hello"}))).To(Succeed())
		}
		Expect(env.Client.Create(ctx, newComponent(ns, "spec", "recover", map[string]any{"greeting": "hello"}))).To(Succeed())
		eventually(func() string { return readyCondition(ctx, newComponent(ns, "spec", "recover", nil)) }).Should(HavePrefix("True/Ready"))
	})

	// lease is the holder of the operator's Lease in ns and how often it
	// changed hands.
	lease := func() string {
		var leases coordinationv1.LeaseList
		Expect(env.Client.List(ctx, &leases, client.InNamespace(ns))).To(Succeed())
		for _, l := range leases.Items {
			if l.Spec.HolderIdentity != nil && l.Spec.LeaseTransitions != nil {
				return fmt.Sprintf("%s after %d transitions", *l.Spec.HolderIdentity, *l.Spec.LeaseTransitions)
			}
		}
		return "none"
	}

	It("keeps its Lease and runs on through 20 s of connections delayed by 800 ms a chunk, under megabytes of load, and acts within 5 s of their end", func() {
		eventually(lease).Should(HavePrefix(identity + " after "))
		held := lease()
		stop := bulkChanges(ctx, ns, 6)
		const slow = 20 * time.Second
		proxy.Delay(800*time.Millisecond, slow)
		// The fault's own length: a wait on purpose, not on the machine's speed.
		Consistently(op.session).WithTimeout(slow).WithPolling(time.Second).ShouldNot(gexec.Exit(), "the leader exits when it loses its Lease")
		stop()
		Expect(lease()).To(Equal(held), "the Lease never changed hands")

		back := time.Now()
		changeValues(ctx, newComponent(ns, "spec", "recover", nil), map[string]any{"greeting": "after the delay"})
		Eventually(func() string { return getConfigMap(ctx, ns, "spec-config").Data["greeting"] }).
			WithTimeout(time.Until(back.Add(recoveryBound))).WithPolling(20 * time.Millisecond).Should(Equal("after the delay"))
		GinkgoWriter.Printf("recovery after delayed connections: %s\n", time.Since(back).Round(time.Millisecond))
	})
})

// bulkChanges changes the values of the Components load-0 … load-(n-1) of
// ns, in turn, to a new greeting of 200 KiB every 100 ms until stop: the
// operator's connections carry megabytes a second of watch events and
// applies, behind which a request on the same connection waits.
func bulkChanges(ctx context.Context, ns string, n int) (stop func()) {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("load-%d", i)
	}
	return changeInTurn(ctx, ns, 100*time.Millisecond, func(i int) string {
		return fmt.Sprintf("%d %s", i, strings.Repeat("x", 200<<10))
	}, names...)
}
