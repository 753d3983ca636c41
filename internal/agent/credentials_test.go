package agent_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/agent"
	"github.com/wavekit-dev/wavekit/internal/agent/register"
)

// docs/fleet-agents.md: the agent creates its credentials Secret, never the
// Secret's namespace.
var _ = Describe("an agent whose credentials Secret's namespace does not exist", func() {
	It("stops at start, naming the namespace, and creates none", func(ctx SpecContext) {
		ns, err := register.Register(ctx, env.Client, register.Cluster{Namespace: "default", Name: "no-credentials-namespace"})
		Expect(err).NotTo(HaveOccurred())
		hub, err := register.Credential(ctx, env.Client, env.Config, ns, time.Hour)
		Expect(err).NotTo(HaveOccurred())
		runCtx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		err = agent.Run(runCtx, agent.Options{Hub: hub, Local: env.Config, Namespace: ns,
			CredentialsSecret: client.ObjectKey{Namespace: "agent-missing", Name: "hub-credentials"}})
		Expect(err).To(MatchError(ContainSubstring(`writing the agent's credentials Secret agent-missing/hub-credentials: namespaces "agent-missing" not found`)))
		Expect(env.Client.Get(ctx, client.ObjectKey{Name: "agent-missing"}, &corev1.Namespace{})).To(Satisfy(apierrors.IsNotFound))
	})
})
