package agent_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/agent"
	"github.com/wavekit-dev/wavekit/internal/agent/register"
)

// The API server answers a bootstrap token it does not take with 401 and
// nothing more, whether its secret is wrong, it expired or it was never
// there (kube-apiserver's bootstrap authenticator logs the cause, at
// verbosity 3, and tells the client nothing): the agent may not claim one
// cause.
var _ = Describe("an agent whose bootstrap token the hub refuses", func() {
	const ns = "refused-1a2b3c4d"
	var valid *rest.Config

	BeforeEach(func(ctx SpecContext) {
		var err error
		valid, err = register.Bootstrap(ctx, env.Client, env.Config, ns, time.Hour)
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() error {
			c, err := client.New(valid, client.Options{})
			if err != nil {
				return err
			}
			return c.List(ctx, &certificatesv1.CertificateSigningRequestList{})
		}).WithContext(ctx).WithTimeout(30*time.Second).Should(Succeed(), "the API server takes the token, once it has seen its Secret")
	})

	// run runs an agent with the bootstrap token of hub and no
	// certificate kept, and returns its error.
	run := func(ctx context.Context, hub *rest.Config) error {
		GinkgoHelper()
		runCtx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		return agent.Run(runCtx, agent.Options{Hub: hub, Local: env.Config, Namespace: ns,
			CredentialsSecret: client.ObjectKey{Namespace: "default", Name: "hub-credentials"}})
	}
	// with is a copy of valid with the token id.secret.
	with := func(id, secret string) *rest.Config {
		out := rest.CopyConfig(valid)
		out.BearerToken = id + "." + secret
		return out
	}

	DescribeTable("says it cannot tell a wrong secret, an expired token and a deleted one apart, and names the token's Secret on the hub",
		func(ctx SpecContext, token func() *rest.Config) {
			hub := token()
			Expect(register.IsBootstrapToken(hub.BearerToken)).To(BeTrue())
			c, err := client.New(hub, client.Options{})
			Expect(err).NotTo(HaveOccurred())
			Expect(c.List(ctx, &certificatesv1.CertificateSigningRequestList{})).To(Satisfy(apierrors.IsUnauthorized), "the API server's whole answer")

			err = run(ctx, hub)
			Expect(err).To(HaveOccurred())
			id, secret, _ := strings.Cut(hub.BearerToken, ".")
			Expect(err.Error()).To(And(
				ContainSubstring("the hub refuses bootstrap token "+id+": a wrong secret, expired or deleted"),
				ContainSubstring("the hub's answer is the same for each"),
				ContainSubstring("Secret kube-system/bootstrap-token-"+id+" on the hub tells which"),
				ContainSubstring("--enable-bootstrap-token-auth"),
				ContainSubstring("Secret default/hub-credentials holds no valid certificate"),
				ContainSubstring("wavekit agent register --bootstrap"),
				Not(ContainSubstring("(expired or deleted)"))))
			Expect(err.Error()).NotTo(ContainSubstring(secret), "the token's secret")
			Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "hub-credentials"}, &corev1.Secret{})).
				To(Satisfy(apierrors.IsNotFound), "nothing kept")
		},
		Entry("a wrong secret of a token that exists", func() *rest.Config {
			id, _, _ := strings.Cut(valid.BearerToken, ".")
			return with(id, "0123456789abcdef")
		}),
		Entry("an expired token", func() *rest.Config {
			expired, err := register.Bootstrap(context.Background(), env.Client, env.Config, ns, -time.Minute)
			Expect(err).NotTo(HaveOccurred())
			return expired
		}),
		Entry("a token that does not exist (deleted)", func() *rest.Config { return with("zzzzzz", "0123456789abcdef") }),
	)
})
