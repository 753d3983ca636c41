package fleettest

import (
	"context"
	"fmt"
	"io"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

const (
	// OperatorNamespace is where the operator chart, as release "wavekit",
	// runs the operator; OperatorAccount is the chart's ServiceAccount.
	OperatorNamespace = "wavekit-system"
	OperatorAccount   = "wavekit-component-operator"
	// Timeout bounds what the suites wait for: a set rolled out, a change
	// retried on conflicts.
	Timeout = 90 * time.Second
)

// Hub is the hub of a fleet, where the sets, their Components and the
// cluster Secrets live: the cluster with the helpers of this package.
type Hub struct {
	*testcluster.Env
}

// Scheme is the hub's scheme: the built-in kinds and wavekit's.
func Scheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("adding the built-in kinds to the hub's scheme: %w", err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("adding wavekit's kinds to the hub's scheme: %w", err)
	}
	return scheme, nil
}

// Start starts the hub, with options and Scheme, and members bare clusters
// (see testcluster.StartClusters) at once, and stops them all when the
// suite ends. Call it in a BeforeSuite.
func Start(options testcluster.Options, members int) (*Hub, []*testcluster.Env) {
	GinkgoHelper()
	var err error
	options.Scheme, err = Scheme()
	Expect(err).NotTo(HaveOccurred())
	var clusters []*testcluster.Env
	started := make(chan error, 1)
	go func() {
		var err error
		clusters, err = testcluster.StartClusters(members)
		started <- err
	}()
	env, hubErr := testcluster.Start(options)
	if hubErr == nil {
		DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	}
	clustersErr := <-started
	if clustersErr == nil {
		DeferCleanup(func() { stopAll(clusters) })
	}
	Expect(hubErr).NotTo(HaveOccurred(), "starting the hub")
	Expect(clustersErr).NotTo(HaveOccurred(), "starting the member clusters")
	return &Hub{Env: env}, clusters
}

// stopAll stops the clusters.
func stopAll(clusters []*testcluster.Env) {
	GinkgoHelper()
	for _, c := range clusters {
		Expect(c.Stop()).To(Succeed())
	}
}

// OperatorIdentity gives the operator on the hub at cfg, through c, the
// identity the operator chart gives it, rendered with values: its namespace,
// its ServiceAccount, Roles and bindings. It returns a copy of cfg that
// reaches the hub as that ServiceAccount.
func OperatorIdentity(ctx context.Context, c client.Client, cfg *rest.Config, values map[string]any) (*rest.Config, error) {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: OperatorNamespace}}); err != nil {
		return nil, fmt.Errorf("creating the operator's namespace: %w", err)
	}
	if err := operatortest.ApplyRBAC(ctx, c, testcluster.ModuleRoot(), "wavekit", OperatorNamespace, values); err != nil {
		return nil, fmt.Errorf("the operator chart's RBAC: %w", err)
	}
	return operatortest.ServiceAccountConfig(ctx, c, cfg, OperatorNamespace, OperatorAccount)
}

// StartOperator runs binary, the operator built by
// operatortest.BuildOperator, on the hub as the chart runs it
// (OperatorIdentity with values), with args after the defaults (its
// sources), its output to out, until the suite ends. It returns the
// operator's identity.
func (h *Hub) StartOperator(binary string, values map[string]any, out io.Writer, args ...string) *rest.Config {
	GinkgoHelper()
	identity, err := OperatorIdentity(context.Background(), h.Client, h.Config, values)
	Expect(err).NotTo(HaveOccurred())
	session, err := operatortest.Operator{Binary: binary, Config: identity, Dir: GinkgoT().TempDir(), Args: args, Out: out}.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Terminate().Wait(10 * time.Second) })
	return identity
}
