package releases_test

import (
	"context"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

var _ = Describe("a tenant", func() {
	// A command watches the release's own namespaces, not every namespace:
	// a tenant whose Role grants one namespace can use it, and no command
	// reads the objects of releases elsewhere.
	It("applies, diffs and deletes a release with a Role of its own namespace only", func() {
		ctx := context.Background()
		elsewhere := clitest.NewNamespace()
		clitest.Succeeds("apply", "demo", "../testdata/web", "-n", elsewhere)
		ns := clitest.NewNamespace()
		tenant := tenantKubeconfig(ctx, ns)

		r := clitest.WavekitWith(tenant, "apply", "demo", "../testdata/web", "-n", ns, "--wait")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(clitest.ConfigMap(ns, "demo-config")).NotTo(BeNil())
		r = clitest.WavekitWith(tenant, "diff", "demo", "../testdata/web", "-n", ns, "--set", "extra=true")
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("+ create ConfigMap " + ns + "/demo-extra"))
		r = clitest.WavekitWith(tenant, "delete", "demo", "-n", ns, "--wait")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(clitest.ConfigMap(ns, "demo-config")).To(BeNil())
		Expect(clitest.ConfigMap(elsewhere, "demo-config")).NotTo(BeNil(), "the release elsewhere is not touched")
	})
})

// tenantKubeconfig writes a kubeconfig of a ServiceAccount that a Role
// lets manage ConfigMaps and Secrets (the releases' own) in namespace, and
// nothing else.
func tenantKubeconfig(ctx context.Context, namespace string) string {
	GinkgoHelper()
	meta := metav1.ObjectMeta{Namespace: namespace, Name: "tenant"}
	Expect(clitest.Env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: meta})).To(Succeed())
	Expect(clitest.Env.Client.Create(ctx, &rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"},
		Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"},
	}}})).To(Succeed())
	Expect(clitest.Env.Client.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: meta,
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: meta.Name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: namespace, Name: meta.Name}},
	})).To(Succeed())
	cfg, err := operatortest.ServiceAccountConfig(ctx, clitest.Env.Client, clitest.Env.Config, namespace, meta.Name)
	Expect(err).NotTo(HaveOccurred())
	path := filepath.Join(GinkgoT().TempDir(), "tenant-kubeconfig")
	Expect(testcluster.WriteKubeconfig(cfg, path)).To(Succeed())
	return path
}
