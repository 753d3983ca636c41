package components_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

var _ = Describe("diff component", func() {
	writeFile := func(content string) string {
		path := filepath.Join(GinkgoT().TempDir(), "component.yaml")
		Expect(os.WriteFile(path, []byte(content), 0o600)).To(Succeed())
		return path
	}

	It("previews a Component that is not in the cluster yet: everything is created, nothing is written", func() {
		ns := clitest.NewNamespace()
		file := writeFile("apiVersion: wavekit.dev/v1alpha1\nkind: Component\nmetadata:\n  name: shop\nspec:\n  source: web\n  values:\n    greeting: hi\n")
		config, counter := clitest.CountingKubeconfig()
		r := clitest.WavekitWith(config, "diff", "component", "-f", file, "-n", ns, "--source", "web=../testdata/web", "--cache-dir", GinkgoT().TempDir())
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(counter.DryRuns()).To(Equal(2), "one dry-run create per object: %s", counter)
		Expect(counter.Writes()).To(Equal(counter.DryRuns()), "every write is a dry run: %s", counter)
		Expect(r.Stdout).To(HavePrefix("wave 0, configuration:\n+ create ConfigMap " + ns + "/shop-config\n"))
		Expect(r.Stdout).To(ContainSubstring("+  greeting: hi\n"))
		Expect(r.Stdout).To(ContainSubstring("+    wavekit.dev/owner: Component " + ns + "/shop\n"))
		Expect(r.Stdout).To(HaveSuffix("Summary: 2 to create, 0 to update, 0 to delete, 0 unchanged\n"))
		Expect(clitest.ConfigMap(ns, "shop-config")).To(BeNil(), "a preview creates nothing")
	})

	It("reads valuesFrom as the Component's service account, masks Secret values, and is refused what the account may not read", func() {
		ns := clitest.NewNamespace()
		const password = "s3cr3t-from-values"
		Expect(clitest.Env.Client.Create(context.Background(), &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "vals"},
			StringData: map[string]string{"values.yaml": "password: " + password + "\n"},
		})).To(Succeed())
		Expect(clitest.Env.Client.Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "reader"}})).To(Succeed())
		file := writeFile("apiVersion: wavekit.dev/v1alpha1\nkind: Component\nmetadata:\n  name: vault\nspec:\n  source: secret\n" +
			"  serviceAccountName: reader\n  valuesFrom:\n  - kind: Secret\n    name: vals\n")
		args := []string{"diff", "component", "-f", file, "-n", ns, "--source", "secret=../testdata/secret", "--cache-dir", GinkgoT().TempDir()}

		r := clitest.Wavekit(args...)
		Expect(r.Code).To(Equal(2), r.Stdout)
		Expect(r.Stderr).To(ContainSubstring(`secrets "vals" is forbidden: User "system:serviceaccount:` + ns + `:reader" cannot get resource "secrets"`))
		Expect(r.Stdout).To(BeEmpty())

		Expect(clitest.Env.Client.Create(context.Background(), &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manage-secrets"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, // it writes as the account, too
				Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}}})).To(Succeed())
		Expect(clitest.Env.Client.Create(context.Background(), &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manage-secrets"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "manage-secrets"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "reader", Namespace: ns}}})).To(Succeed())
		Eventually(func() string { r := clitest.Wavekit(args...); return fmt.Sprint(r.Code, r.Stderr) }).WithTimeout(30 * time.Second).Should(Equal("1"))
		r = clitest.Wavekit(args...)
		Expect(r.Stdout).To(ContainSubstring("+ create Secret " + ns + "/vault-credentials\n"))
		Expect(r.Stdout).To(ContainSubstring("+  password: '***'\n"))
		Expect(r.Stdout + r.Stderr).NotTo(ContainSubstring(password))
		r = clitest.Wavekit(append(args, "-o", "json")...)
		Expect(r.Stdout + r.Stderr).NotTo(ContainSubstring(password))
	})

	It("takes the rendering flags of the running operator from its Deployment with --operator", func() {
		ns := clitest.NewNamespace()
		labels := map[string]string{"app": "op"}
		Expect(clitest.Env.Client.Create(context.Background(), &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "op"},
			Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{
					{Name: "sidecar", Image: "proxy", Args: []string{"--port", "8443"}},
					{Name: "manager", Image: "operator", Args: []string{"--operator-name=other.dev", "--source", "web=/sources/web", "--leader-elect"}},
				}},
			}},
		})).To(Succeed())
		file := writeFile("apiVersion: wavekit.dev/v1alpha1\nkind: Component\nmetadata:\n  name: shop\nspec:\n  source: web\n")
		args := []string{"diff", "component", "-f", file, "-n", ns, "--operator", ns + "/op", "--cache-dir", GinkgoT().TempDir()}

		r := clitest.Wavekit(args...)
		Expect(r.Code).To(Equal(2), r.Stdout)
		Expect(r.Stderr).To(Equal("error: Component " + ns + "/shop uses source web, which the operator serves from /sources/web in its image: give --source web=DIR with a copy of it\n"))

		r = clitest.Wavekit(append(args, "--source", "web=../testdata/web")...)
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("+    other.dev/owner: Component " + ns + "/shop\n"))
		r = clitest.Wavekit(append(args, "--source", "web=../testdata/web", "--operator-name", "mine.dev")...)
		Expect(r.Stdout).To(ContainSubstring("+    mine.dev/owner: Component "+ns+"/shop\n"), "a flag given wins")
	})

	It("renders a Flux source from a local directory with --path", func() {
		ns := clitest.NewNamespace()
		file := writeFile("apiVersion: wavekit.dev/v1alpha1\nkind: Component\nmetadata:\n  name: shop\nspec:\n" +
			"  sourceRef:\n    kind: GitRepository\n    name: repo\n  path: web\n")
		r := clitest.Wavekit("diff", "component", "-f", file, "-n", ns, "--path", "../testdata", "--cache-dir", GinkgoT().TempDir())
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("+ create ConfigMap " + ns + "/shop-config\n"))
		Expect(r.Stdout).To(HaveSuffix("Summary: 2 to create, 0 to update, 0 to delete, 0 unchanged\n"))
	})

	DescribeTable("refuses bad input with exit code 2 and says why", clitest.RefusesDiffInput("component"),
		Entry("no Component named", nil, "", "diff component needs NAMESPACE/NAME or -f FILE (see wavekit diff component --help)"),
		Entry("both a name and a file", []string{"x/y"}, "kind: Component", "diff component takes NAMESPACE/NAME or -f FILE, not both"),
		Entry("a Component that does not exist", []string{"nowhere/missing"}, "", "Component nowhere/missing not found"),
		Entry("a file of another kind", nil, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", "FILE: holds v1 ConfigMap, not a Component of wavekit.dev/v1alpha1"),
		Entry("--path for a Component without spec.sourceRef", []string{"--path", "../testdata"},
			"apiVersion: wavekit.dev/v1alpha1\nkind: Component\nmetadata:\n  name: shop\nspec:\n  source: web\n",
			"--path ../testdata: Component NS/shop has no spec.sourceRef to stand for"),
		Entry("a source the operator does not serve", []string{"--source", "web=../testdata/web"},
			"apiVersion: wavekit.dev/v1alpha1\nkind: Component\nmetadata:\n  name: shop\nspec:\n  source: api\n",
			"Component NS/shop: rendering: source \"api\" is not served (served: web)"),
	)
})
