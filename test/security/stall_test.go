package security_test

import (
	"net"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// The operator runs one worker. A target that accepts connections and never
// answers, and a service account without any rights, must not delay a
// healthy Component.
var _ = Describe("a broken target", func() {
	It("does not delay a healthy Component", func() {
		stalled := silentServer()
		createTenant("team-broken")
		kubeconfigSecret("team-broken", "stalled-kc", &clientcmdapi.Cluster{Server: "https://" + stalled, InsecureSkipTLSVerify: true},
			&clientcmdapi.AuthInfo{Token: "inline"})
		broken := newComponent("team-broken", "stalled")
		broken.Spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: "stalled-kc"}
		Expect(env.Client.Create(ctx, broken)).To(Succeed())
		Expect(env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "team-broken", Name: "nobody"}})).To(Succeed())
		weak := newComponent("team-broken", "weak")
		weak.Spec.ServiceAccountName = "nobody"
		Expect(env.Client.Create(ctx, weak)).To(Succeed())

		createTenant("team-healthy")
		healthy := newComponent("team-healthy", "healthy")
		Expect(env.Client.Create(ctx, healthy)).To(Succeed())
		// Far below the stalled target's per-request TLS handshake timeout (10s).
		fast := func(f any) AsyncAssertion {
			return Eventually(f).WithTimeout(8 * time.Second).WithPolling(100 * time.Millisecond)
		}
		// The operator applies the healthy Component at once, and reports it
		// Ready at once after the controllers have rolled its Deployment out
		// (their time is not the operator's, so it is not counted).
		fast(func() error {
			return env.Client.Get(ctx, client.ObjectKey{Namespace: "team-healthy", Name: "healthy"}, &appsv1.Deployment{})
		}).Should(Succeed())
		rolledOut("team-healthy", "healthy")
		fast(func() string { return readyCondition(healthy) }).Should(HavePrefix("True/Ready"))

		eventually(func() string { return readyCondition(weak) }).Should(And(
			HavePrefix("False/"), ContainSubstring(`User "system:serviceaccount:team-broken:nobody" cannot list resource`)))
		eventually(func() string { return readyCondition(broken) }).Should(And(
			HavePrefix("False/"), ContainSubstring("target cluster https://"+stalled+" does not answer within 3s")))
	})
})

// silentServer accepts TCP connections on 127.0.0.1 and never answers.
func silentServer() string {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := listener.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	DeferCleanup(func() {
		_ = listener.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return listener.Addr().String()
}
