package e2e_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/sopstest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The operator binary runs with the chart's RBAC and the lockdown on
// (--default-service-account deployer; tenants have namespaced Roles), with
// --allowed-sources, serving a kustomization whose Secret the test encrypts
// with SOPS for an age key it makes.
var _ = Describe("what the operator trusts: SOPS-encrypted Secrets and allowed sources", Ordered, func() {
	const annotation = "e2e.wavekit.dev/allowed-sources"
	var (
		env        *testcluster.Env
		operator   *gexec.Session
		ctx        = context.Background()
		written    []string // directories the operator writes to
		plain      []string // the secret values of the source
		recipient  string
		identity   string
		repo       *localrepo.Repository
		denied     net.Listener
		accepts    atomic.Int64
		deniedPort string
	)

	BeforeAll(func() {
		env = startControlPlane()
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wavekit-system"}})).To(Succeed())
		for _, ns := range []string{"sealed", "wrongkey", "misnamed", "allow", "narrow"} {
			createDeployerTenant(ctx, env, ns)
		}
		applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{"defaultServiceAccount": "deployer"})

		var err error
		identity, recipient, err = sopstest.NewKey()
		Expect(err).NotTo(HaveOccurred())
		plain = []string{"sops-pw-" + fmt.Sprint(time.Now().UnixNano()%1e6), "sops-greeting-value"}
		source := sealedSource(recipient, plain[0])

		repo, err = localrepo.NewRepository()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(repo.Close)
		Expect(repo.Add(localrepo.Hello("1.0.0"))).To(Succeed())
		denied, err = net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(denied.Close)
		go countAccepts(denied, &accepts)
		_, deniedPort, _ = net.SplitHostPort(denied.Addr().String())

		cacheDir, tmp := GinkgoT().TempDir(), GinkgoT().TempDir()
		written = []string{cacheDir, tmp}
		operator = startTrustOperator(serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator"), tmp,
			"--source", "sealed="+source, "--source-cache-dir", cacheDir, "--zap-log-level=10",
			"--default-service-account", "deployer",
			"--allowed-sources", "http://127.0.0.1:*/**", "--allowed-sources", "!http://127.0.0.1:"+deniedPort+"/**")
	})

	reasonAndMessage := func(c *v1alpha1.Component) func() string {
		return func() string { return statusOf(ctx, env, c) }
	}
	create := func(ns, name string, spec v1alpha1.ComponentSpec) *v1alpha1.Component {
		GinkgoHelper()
		spec.Intervals.Retry = &metav1.Duration{Duration: time.Second}
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		return c
	}
	secret := func(ns, name string, data map[string]string) {
		GinkgoHelper()
		Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: data})).To(Succeed())
	}
	sealed := func(ns string) v1alpha1.ComponentSpec {
		return v1alpha1.ComponentSpec{Source: "sealed", Decryption: &v1alpha1.Decryption{Provider: "sops", SecretRef: v1alpha1.LocalObjectReference{Name: "sops-keys"}},
			ValuesFrom: []v1alpha1.ValuesReference{{Kind: "Secret", Name: "encrypted-values"}}}
	}
	encryptedValues := func(ns string) {
		GinkgoHelper()
		enc, err := sopstest.Encrypt([]byte("greeting: "+plain[1]+"\n"), recipient, "")
		Expect(err).NotTo(HaveOccurred())
		secret(ns, "encrypted-values", map[string]string{"values.yaml": string(enc)})
	}

	It("applies a SOPS-encrypted Secret decrypted, with SOPS-encrypted values of valuesFrom", func() {
		secret("sealed", "sops-keys", map[string]string{"team.agekey": "# made by the test\n" + identity + "\n"})
		encryptedValues("sealed")
		c := create("sealed", "app", sealed("sealed"))
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(60*time.Second).Should(Equal("True/Ready"), reasonAndMessage(c))
		var s corev1.Secret
		Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: "sealed", Name: "db"}, &s)).To(Succeed())
		Expect(string(s.Data["password"])).To(Equal(plain[0]), "data is decrypted")
		Expect(string(s.Data["user"])).To(Equal("admin"), "stringData is decrypted")
		var cm corev1.ConfigMap
		Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: "sealed", Name: "greeting"}, &cm)).To(Succeed())
		Expect(cm.Data).To(HaveKeyWithValue("greeting", plain[1]))
	})

	It("refuses a wrong key or a key not named *.agekey, naming the file and the recipients, and applies nothing", func() {
		other, otherRecipient, err := sopstest.NewKey()
		Expect(err).NotTo(HaveOccurred())
		secret("wrongkey", "sops-keys", map[string]string{"team.agekey": other})
		objectsOnly := sealed("wrongkey")
		objectsOnly.ValuesFrom = nil // the values would be decrypted first
		wrong := create("wrongkey", "app", objectsOnly)
		secret("misnamed", "sops-keys", map[string]string{"age.key": identity})
		encryptedValues("misnamed")
		misnamed := create("misnamed", "app", sealed("misnamed"))

		Eventually(reasonAndMessage(wrong)).WithTimeout(60 * time.Second).Should(And(HavePrefix("False/DecryptionFailed"),
			ContainSubstring("secret.enc.yaml"), ContainSubstring(recipient), ContainSubstring(otherRecipient)))
		Eventually(reasonAndMessage(misnamed)).WithTimeout(60 * time.Second).Should(And(HavePrefix("False/DecryptionFailed"),
			ContainSubstring("age.key"), ContainSubstring(".agekey")))
		for _, ns := range []string{"wrongkey", "misnamed"} {
			Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "db"}, &corev1.Secret{})).To(Satisfy(apierrors.IsNotFound))
			Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "greeting"}, &corev1.ConfigMap{})).To(Satisfy(apierrors.IsNotFound))
		}
	})

	It("refuses a source outside --allowed-sources before any connection to it, and installs an allowed one", func() {
		deniedURL := "http://127.0.0.1:" + deniedPort + "/charts"
		byDeny := create("allow", "denied", v1alpha1.ComponentSpec{Chart: &v1alpha1.ChartSource{Repository: deniedURL, Name: "hello"}})
		unlisted := create("allow", "unlisted", v1alpha1.ComponentSpec{Chart: &v1alpha1.ChartSource{Repository: "oci://127.0.0.1:" + deniedPort + "/charts", Name: "hello", Insecure: true}})
		allowed := create("allow", "allowed", v1alpha1.ComponentSpec{Chart: &v1alpha1.ChartSource{Repository: repo.URL, Name: "hello"}})

		Eventually(reasonAndMessage(byDeny)).WithTimeout(60 * time.Second).Should(And(HavePrefix("False/SourceNotAllowed"),
			ContainSubstring(`refused by the pattern "!http://127.0.0.1:`+deniedPort+`/**" of --allowed-sources`)))
		Eventually(reasonAndMessage(unlisted)).WithTimeout(60 * time.Second).Should(And(HavePrefix("False/SourceNotAllowed"),
			ContainSubstring("no pattern of --allowed-sources of the operator allows it")))
		Eventually(func() string { return readyReason(ctx, env, allowed) }).WithTimeout(60*time.Second).Should(Equal("True/Ready"), reasonAndMessage(allowed))
		Expect(accepts.Load()).To(BeZero(), "the operator connected to a source it refused")
	})

	It("narrows the allowed sources by the Namespace's annotation, which a tenant cannot change", func() {
		setAnnotation(ctx, env.Client, "narrow", annotation, "https://charts.example.com/**")
		c := create("narrow", "app", v1alpha1.ComponentSpec{Chart: &v1alpha1.ChartSource{Repository: repo.URL, Name: "hello"}})
		Eventually(reasonAndMessage(c)).WithTimeout(60 * time.Second).Should(And(HavePrefix("False/SourceNotAllowed"),
			ContainSubstring("no pattern of the annotation "+annotation+" of Namespace narrow allows it")))

		By("a tenant, admin of its namespace by a RoleBinding, trying to widen it")
		tenant := tenantAdmin(ctx, env, "narrow")
		var ns corev1.Namespace
		Expect(env.Client.Get(ctx, types.NamespacedName{Name: "narrow"}, &ns)).To(Succeed())
		ns.Annotations[annotation] = "http://127.0.0.1:*/**"
		Expect(tenant.Update(ctx, &ns)).To(Satisfy(apierrors.IsForbidden))
		patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+annotation+`":"**"}}}`))
		Expect(tenant.Patch(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "narrow"}}, patch)).To(Satisfy(apierrors.IsForbidden))

		By("a tenant whose Role grants every verb on every resource: a Role in a namespace covers that Namespace object itself")
		wildcard := tenantAdmin(ctx, env, "narrow", rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}})
		Expect(wildcard.Patch(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "narrow"}}, patch)).To(Succeed(),
			"docs/security-sources.md warns that such a Role lets a tenant widen its own allowed sources")
		setAnnotation(ctx, env.Client, "narrow", annotation, "https://charts.example.com/**")

		By("the platform team widening it")
		setAnnotation(ctx, env.Client, "narrow", annotation, "http://127.0.0.1:*/**")
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(60*time.Second).Should(Equal("True/Ready"), reasonAndMessage(c))
	})

	It("shows the decrypted values in no log line, Event, status or file of the operator", func() {
		haystacks := map[string]string{
			"the operator's log": string(operator.Out.Contents()) + string(operator.Err.Contents()),
			"the Events":         eventTexts(ctx, env),
		}
		for _, ns := range []string{"sealed", "wrongkey", "misnamed"} {
			haystacks["the status in "+ns] = componentStatuses(ctx, env, ns)
		}
		Expect(haystacks["the operator's log"]).To(ContainSubstring("Reconcil"), "the log is verbose enough to leak")
		for _, dir := range written {
			for path, content := range filesUnder(dir) {
				haystacks[path] = content
			}
		}
		Expect(len(haystacks)).To(BeNumerically(">", 5), "the operator wrote files to scan")
		for where, text := range haystacks {
			for _, v := range plain {
				Expect(text).NotTo(ContainSubstring(v), "%s shows a decrypted value", where)
				Expect(text).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString([]byte(v))), "%s shows a decrypted value in base64", where)
			}
			Expect(text).NotTo(ContainSubstring(identity), "%s shows the age key", where)
		}
	})
})

// sealedSource writes a kustomization whose Secret is encrypted for
// recipient as `sops --encrypt --encrypted-regex '^(data|stringData)$'`
// does, next to a ConfigMap of the values; it returns its directory.
func sealedSource(recipient, password string) string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	secret := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: " +
		base64.StdEncoding.EncodeToString([]byte(password)) + "\nstringData:\n  user: admin\n"
	enc, err := sopstest.Encrypt([]byte(secret), recipient, "^(data|stringData)$")
	Expect(err).NotTo(HaveOccurred())
	Expect(string(enc)).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString([]byte(password))))
	files := map[string]string{
		"kustomization.yaml": "resources:\n  - secret.enc.yaml\n  - configmap.yaml\n",
		"secret.enc.yaml":    string(enc),
		"configmap.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: greeting\ndata:\n  greeting: {{ .Values.greeting | quote }}\n",
	}
	for name, content := range files {
		Expect(os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600)).To(Succeed())
	}
	return dir
}

// startTrustOperator runs the operator binary as cfg's user, with TMPDIR
// and HOME in tmp, so that every file it writes can be scanned.
func startTrustOperator(cfg *rest.Config, tmp string, args ...string) *gexec.Session {
	GinkgoHelper()
	session, err := operatortest.Operator{Binary: buildOperatorBinary(), Config: cfg, Dir: GinkgoT().TempDir(), Out: GinkgoWriter,
		Env: []string{"TMPDIR=" + tmp, "HOME=" + tmp}, Args: append([]string{"--operator-name", "e2e.wavekit.dev"}, args...)}.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Terminate().Wait(10 * time.Second) })
	return session
}

// countAccepts counts the connections l accepts, closing each, until l is
// closed.
func countAccepts(l net.Listener, accepts *atomic.Int64) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		accepts.Add(1)
		_ = conn.Close()
	}
}

// createDeployerTenant creates namespace ns with the lockdown's
// ServiceAccount deployer, allowed by a Role in ns alone to read and write
// the Secrets and ConfigMaps the sources deploy.
func createDeployerTenant(ctx context.Context, env *testcluster.Env, ns string) {
	GinkgoHelper()
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	Expect(env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "deployer"}})).To(Succeed())
	rules := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"},
		Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}}
	Expect(env.Client.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "deployer"}, Rules: rules})).To(Succeed())
	Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "deployer"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "deployer"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: "deployer"}},
	})).To(Succeed())
}

// tenantAdmin returns a client of a ServiceAccount of ns with what the
// built-in admin ClusterRole gives a team in its namespace (read its
// Namespace, write its namespaced objects), granted by a Role in ns. (The
// aggregated admin role itself is filled in by kube-controller-manager,
// which this control plane does not run.)
func tenantAdmin(ctx context.Context, env *testcluster.Env, ns string, rules ...rbacv1.PolicyRule) client.Client {
	GinkgoHelper()
	if len(rules) == 0 {
		rules = []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"", "apps", "wavekit.dev"}, Resources: []string{"configmaps", "secrets", "deployments", "components"}, Verbs: []string{"*"}},
		}
	}
	name := fmt.Sprintf("team-%d", len(rules[0].Resources)+len(rules))
	Expect(env.Client.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules})).To(Succeed())
	Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: name}},
	})).To(Succeed())
	cl, err := client.New(serviceAccountConfig(ctx, env, ns, name), client.Options{Scheme: env.Client.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	Eventually(func() error { // its Role is in force
		var n corev1.Namespace
		return cl.Get(ctx, types.NamespacedName{Name: ns}, &n)
	}).WithTimeout(10 * time.Second).Should(Succeed())
	return cl
}

// setAnnotation sets an annotation of Namespace ns, as the platform team.
func setAnnotation(ctx context.Context, c client.Client, ns, key, value string) {
	GinkgoHelper()
	Eventually(func() error {
		var namespace corev1.Namespace
		if err := c.Get(ctx, types.NamespacedName{Name: ns}, &namespace); err != nil {
			return err
		}
		if namespace.Annotations == nil {
			namespace.Annotations = map[string]string{}
		}
		namespace.Annotations[key] = value
		return c.Update(ctx, &namespace)
	}).Should(Succeed())
}

// filesUnder returns the content of every regular file under dir, by path.
func filesUnder(dir string) map[string]string {
	GinkgoHelper()
	files := map[string]string{}
	Expect(filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = string(data)
		return err
	})).To(Succeed())
	return files
}
