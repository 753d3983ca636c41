// Package dashboard_test drives the reference operator's status page in a
// real headless Chromium, against a whole local cluster (kube-apiserver,
// the controllers, the scheduler and kwok's Nodes, so Deployments roll out
// for real) and two bare API servers, the clusters of a ComponentSet: the
// operator runs as its own process, as the chart's
// ServiceAccount with the chart's RBAC (web.enabled), with
// --web-bind-address; viewers are ServiceAccounts whose tokens the page
// checks with TokenReviews and SubjectAccessReviews.
package dashboard_test

import (
	"context"
	"encoding/hex"
	"path/filepath"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/dashboard/session"
)

const (
	operatorName   = "dash.wavekit.dev"
	systemNS       = "wavekit-system"
	operatorSA     = "wavekit-component-operator"
	teamA, teamB   = "team-a", "team-b"
	componentsKind = "component.wavekit.dev"
	// secretMarker is the value of a valuesFrom Secret: no page, Event or
	// log line may show it.
	secretMarker = "marker-7f3c9e1d-do-not-show"
)

var (
	ctx      = context.Background()
	env      *testcluster.Env
	operator *gexec.Session
	// members are the bare API servers of a ComponentSet's clusters.
	members []*testcluster.Env
	// base is the page's URL.
	base string
	// provider is the OpenID Connect provider people sign in with.
	provider *mockoidc.MockOIDC
	// sessionKey is the key the page seals its cookies with.
	sessionKey string
)

func TestDashboard(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "dashboard")
}

var _ = BeforeSuite(func() {
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	var err error
	started := make(chan error, 1)
	go func() {
		var err error
		members, err = testcluster.StartClusters(2)
		started <- err
	}()
	env, err = testcluster.Start(testcluster.Options{Scheme: scheme, Controllers: true})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	// Stopped after the operator, which watches them.
	Expect(<-started).To(Succeed())
	DeferCleanup(func() {
		for _, m := range members {
			Expect(m.Stop()).To(Succeed())
		}
	})
	for _, ns := range []string{systemNS, teamA, teamB} {
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}
	Expect(operatortest.ApplyRBAC(ctx, env.Client, testcluster.ModuleRoot(), "wavekit", systemNS, map[string]any{
		"web":  map[string]any{"enabled": true},
		"rbac": map[string]any{"extraRules": sourceRules()},
	})).To(Succeed())
	addr, err := operatortest.FreeLocalAddress()
	Expect(err).NotTo(HaveOccurred())
	base = "http://" + addr
	provider, err = mockoidc.Run()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(provider.Shutdown)
	sessionKey = hex.EncodeToString(session.RandomKey())
	binary, err := operatortest.BuildOperator(testcluster.ModuleRoot(), GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	operator = startOperator(binary, []string{"WAVEKIT_WEB_OIDC_CLIENT_SECRET=" + provider.ClientSecret, "WAVEKIT_WEB_SESSION_KEY=" + sessionKey},
		"--web-bind-address", addr, "--web-oidc-issuer-url", provider.Issuer(), "--web-oidc-client-id", provider.ClientID,
		"--web-oidc-redirect-url", base+"/auth/callback")
	Eventually(func() (int, error) { return status(base+"/login", "") }).WithTimeout(2 * time.Minute).Should(Equal(200))
})

// sourceRules are the chart's rbac.extraRules for what testdata/app
// deploys, as a user would grant them.
func sourceRules() []any {
	verbs := []any{"get", "list", "watch", "create", "update", "patch", "delete"}
	return []any{
		map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": verbs},
		map[string]any{"apiGroups": []any{"apps"}, "resources": []any{"deployments"}, "verbs": verbs},
	}
}

// startOperator runs the operator as the chart's ServiceAccount, serving
// testdata/app as the source app, with environ besides the test's own, until
// the suite ends.
func startOperator(binary string, environ []string, args ...string) *gexec.Session {
	GinkgoHelper()
	cfg, err := operatortest.ServiceAccountConfig(ctx, env.Client, env.Config, systemNS, operatorSA)
	Expect(err).NotTo(HaveOccurred())
	session, err := operatortest.Operator{Binary: binary, Config: cfg, Dir: GinkgoT().TempDir(), Out: GinkgoWriter, Env: environ,
		Args: append([]string{"--operator-name", operatorName,
			"--source", "app=" + filepath.Join(testcluster.ModuleRoot(), "test", "dashboard", "testdata", "app"),
			"--source", "site=" + filepath.Join(testcluster.ModuleRoot(), "test", "dashboard", "testdata", "site")}, args...)}.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Terminate().Wait(10 * time.Second) })
	return session
}

// viewerToken creates a ServiceAccount that may list and get Components
// and list Events in namespaces ("" for every namespace) and returns a
// token of it.
func viewerToken(namespace, name string, namespaces ...string) string {
	GinkgoHelper()
	return viewerTokenOf([]string{"components"}, namespace, name, namespaces...)
}

// viewerTokenOf is viewerToken with get, list and watch on these resources
// of wavekit.dev.
func viewerTokenOf(resources []string, namespace, name string, namespaces ...string) string {
	GinkgoHelper()
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{"wavekit.dev"}, Resources: resources, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"get", "list", "watch"}},
	}
	subject := rbacv1.Subject{Kind: "ServiceAccount", Namespace: namespace, Name: name}
	for _, ns := range namespaces {
		meta := metav1.ObjectMeta{Name: "view-" + name, Namespace: ns}
		ref := rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: meta.Name}
		if ns == "" {
			ref.Kind = "ClusterRole"
			Expect(env.Client.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: meta, Rules: rules})).To(Succeed())
			Expect(env.Client.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: meta, RoleRef: ref, Subjects: []rbacv1.Subject{subject}})).To(Succeed())
			continue
		}
		Expect(env.Client.Create(ctx, &rbacv1.Role{ObjectMeta: meta, Rules: rules})).To(Succeed())
		Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: ref, Subjects: []rbacv1.Subject{subject}})).To(Succeed())
	}
	cfg, err := operatortest.ServiceAccountConfig(ctx, env.Client, env.Config, namespace, name)
	Expect(err).NotTo(HaveOccurred())
	return cfg.BearerToken
}
