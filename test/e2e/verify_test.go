package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The operator verifies a chart's signature before it renders it
// (spec.chart.verify): cosign signatures of OCI charts in both formats and
// Helm provenance files, with keys the test makes. It runs as its own
// process with the chart's RBAC.
var _ = Describe("Components that verify their charts", Ordered, func() {
	var (
		env      *testcluster.Env
		ctx      = context.Background()
		registry *localregistry.Registry
		alter    localregistry.Alterer
		signer   *localregistry.Signer
		other    *localregistry.Signer
		metrics  string
		pulls    atomic.Int64 // requests the registry answered
		// askedAt is a time before the operator first looked at the
		// registry or read a key: a reconcile request made then is
		// answered with what the operator holds, as a request no newer
		// than its last look needs nothing newer.
		askedAt = time.Now().UTC().Format(time.RFC3339Nano)
	)
	const ns = "verify"

	BeforeAll(func() {
		env = startControlPlane()
		for _, name := range []string{"wavekit-system", ns} {
			Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
		}
		applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{"rbac": map[string]any{"extraRules": webSourceRules()}})
		cfg := serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator")
		metrics = "http://" + freeLocalAddress()
		startOperatorBinary(buildOperatorBinary(), cfg, "--watch-namespaces", ns, "--source-cache-dir", GinkgoT().TempDir(),
			"--metrics-bind-address", strings.TrimPrefix(metrics, "http://"), "--metrics-secure=false")

		var err error
		counted := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { pulls.Add(1); h.ServeHTTP(w, r) })
		}
		registry, err = localregistry.Start(localregistry.Options{Wrap: func(h http.Handler) http.Handler { return counted(alter.Wrap(h)) }})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(registry.Close)
		signer, err = localregistry.NewSigner()
		Expect(err).NotTo(HaveOccurred())
		other, err = localregistry.NewSigner()
		Expect(err).NotTo(HaveOccurred())
		for _, version := range []string{"1.0.0", "2.0.0", "3.0.0", "4.0.0", "5.0.0", "6.0.0", "7.0.0"} {
			Expect(registry.Push("charts", localrepo.Hello(version))).To(Succeed())
		}
		Expect(registry.SignBundle(ctx, "charts", "hello", "1.0.0", signer)).To(Succeed())
		Expect(registry.SignTag(ctx, "charts", "hello", "2.0.0", signer)).To(Succeed())
		Expect(registry.SignBundle(ctx, "charts", "hello", "4.0.0", signer)).To(Succeed())
		Expect(registry.SignBundle(ctx, "charts", "hello", "5.0.0", signer)).To(Succeed())
		secret := func(name string, data map[string][]byte) {
			Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data})).To(Succeed())
		}
		secret("cosign-keys", map[string][]byte{"cosign.pub": signer.PublicKeyPEM()})
		secret("other-keys", map[string][]byte{"cosign.pub": other.PublicKeyPEM()})
		secret("misnamed-keys", map[string][]byte{"cosign.key": signer.PublicKeyPEM()})
	})

	ociChart := func(name, version, keys string) *v1alpha1.Component {
		return &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ComponentSpec{
			Chart: &v1alpha1.ChartSource{Repository: registry.Repository("charts"), Name: "hello", Version: version, Insecure: true,
				Verify: &v1alpha1.ChartVerification{Provider: "cosign", SecretRef: v1alpha1.LocalObjectReference{Name: keys}}}}}
	}
	condition := func(c *v1alpha1.Component, kind string) string {
		var got v1alpha1.Component
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), &got); err != nil {
			return err.Error()
		}
		cond := meta.FindStatusCondition(got.Status.Conditions, kind)
		if cond == nil {
			return "none"
		}
		return fmt.Sprintf("%s/%s: %s", cond.Status, cond.Reason, cond.Message)
	}
	installed := func(c *v1alpha1.Component) {
		GinkgoHelper()
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(60*time.Second).Should(Equal("True/Ready"), func() string { return statusOf(ctx, env, c) })
		var cm corev1.ConfigMap
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: c.Name}, &cm)).To(Succeed())
	}
	refused := func(c *v1alpha1.Component, messages ...string) {
		GinkgoHelper()
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(60*time.Second).Should(Equal("False/VerificationFailed"), func() string { return statusOf(ctx, env, c) })
		for _, m := range messages {
			Expect(statusOf(ctx, env, c)).To(ContainSubstring(m))
			Expect(condition(c, "SourceVerified")).To(And(HavePrefix("False/VerificationFailed: "), ContainSubstring(m)))
		}
		var got v1alpha1.Component
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), &got)).To(Succeed())
		Expect(got.Status.Inventory).To(BeEmpty(), "nothing is rendered or written")
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: c.Name}, &corev1.ConfigMap{})
		Expect(err).To(HaveOccurred(), "the chart's ConfigMap is not created")
	}

	It("installs a chart signed with a Sigstore bundle or a .sig tag, and says with which key", func() {
		for name, version := range map[string]string{"bundle": "1.0.0", "tag": "2.0.0"} {
			c := ociChart(name, version, "cosign-keys")
			installed(c)
			digest, err := registry.ManifestDigest(ctx, "charts", "hello", version)
			Expect(err).NotTo(HaveOccurred())
			Expect(condition(c, "SourceVerified")).To(And(HavePrefix("True/Succeeded: cosign signature"),
				ContainSubstring("of "+digest+" verified with key cosign.pub (sha256:")))
		}
	})

	It("passes again over a verified chart without reading its keys or asking the registry", func() {
		c := ociChart("again", "5.0.0", "cosign-keys")
		installed(c)
		Eventually(func() string { return condition(c, "SourceVerified") }).Should(HavePrefix("True/Succeeded"))
		before, registryBefore := operatorRequests(metrics), pulls.Load()

		requested := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name}}
		edit(ctx, env, requested, func() { requested.Annotations = map[string]string{"e2e.wavekit.dev/reconcile-requested-at": askedAt} })
		Eventually(func(g Gomega) {
			var got v1alpha1.Component
			g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), &got)).To(Succeed())
			g.Expect(got.Status.LastHandledReconcileAt).To(Equal(askedAt))
		}).WithTimeout(60 * time.Second).Should(Succeed())

		grown := operatorRequests(metrics).minus(before)
		Expect(grown).NotTo(HaveKey("get"), "the pass read nothing, the keys' Secret neither: %v", grown)
		Expect(grown).NotTo(HaveKey("list"), "%v", grown)
		Expect(pulls.Load()).To(Equal(registryBefore), "the registry was not asked again")
		Expect(condition(c, "SourceVerified")).To(HavePrefix("True/Succeeded"))
	})

	It("refuses an unsigned chart, one signed with another key, and a Secret without *.pub keys, writing nothing", func() {
		digest, err := registry.ManifestDigest(ctx, "charts", "hello", "3.0.0")
		Expect(err).NotTo(HaveOccurred())
		refused(ociChart("unsigned", "3.0.0", "cosign-keys"), "@"+digest, "Sigstore bundles: none among the referrers",
			"tag sha256-"+strings.TrimPrefix(digest, "sha256:")+".sig: not found")
		refused(ociChart("wrong-key", "1.0.0", "other-keys"), "no cosign signature verified with key cosign.pub")
		refused(ociChart("misnamed", "1.0.0", "misnamed-keys"), "no key named *.pub in Secret misnamed-keys", "cosign.key")
	})

	It("refuses a signed chart whose content the registry alters", func() {
		layer, err := registry.LayerDigest(ctx, "charts", "hello", "4.0.0")
		Expect(err).NotTo(HaveOccurred())
		alter.Alter(layer)
		refused(ociChart("altered", "4.0.0", "cosign-keys"), "the content served for the signed manifest")
	})

	It("installs a chart of a Helm repository whose .prov the keyring verifies, and refuses a wrong keyring or a replaced chart", func() {
		repo, err := localrepo.NewRepository()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(repo.Close)
		key, err := localrepo.NewPGPKey("charts-team")
		Expect(err).NotTo(HaveOccurred())
		stranger, err := localrepo.NewPGPKey("stranger")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.AddSigned(key, localrepo.Hello("1.0.0"), localrepo.Hello("2.0.0"))).To(Succeed())
		tampered := localrepo.Hello("2.0.0")
		tampered.Values = map[string]any{"greeting": "tampered"}
		Expect(repo.Add(tampered)).To(Succeed())
		for name, ring := range map[string][]byte{"team-ring": key.Keyring, "stranger-ring": stranger.Keyring} {
			Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Data: map[string][]byte{"pubring.gpg": ring}})).To(Succeed())
		}
		helmChart := func(name, version, ring string) *v1alpha1.Component {
			return &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ComponentSpec{
				Chart: &v1alpha1.ChartSource{Repository: repo.URL, Name: "hello", Version: version,
					Verify: &v1alpha1.ChartVerification{Provider: "helm", SecretRef: v1alpha1.LocalObjectReference{Name: ring}}}}}
		}
		signed := helmChart("provenance", "1.0.0", "team-ring")
		installed(signed)
		Expect(condition(signed, "SourceVerified")).To(And(HavePrefix("True/Succeeded: Helm provenance of hello-1.0.0.tgz"),
			ContainSubstring("signed by charts-team (test) <charts-team@example.com>")))
		refused(helmChart("stranger", "1.0.0", "stranger-ring"), "provenance file hello-1.0.0.tgz.prov, with the keyring pubring.gpg")
		refused(helmChart("tampered", "2.0.0", "team-ring"), "sha256 sum does not match for hello-2.0.0.tgz")
	})

	It("installs a chart signed as wavekit's releases are (hack/release sign-artifact, a cosign key file), and refuses it altered", func() {
		keys := GinkgoT().TempDir()
		releaseCmd := func(args ...string) {
			GinkgoHelper()
			cmd := exec.Command("go", append([]string{"run", "./hack/release"}, args...)...)
			cmd.Dir = testcluster.ModuleRoot()
			cmd.Env = append(os.Environ(), "COSIGN_PASSWORD=release password", "DOCKER_CONFIG="+keys)
			out, err := cmd.CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), "release %s:\n%s", strings.Join(args, " "), out)
		}
		releaseCmd("keygen", "-out", keys)
		for _, version := range []string{"6.0.0", "7.0.0"} { // pushed unsigned with the others
			releaseCmd("sign-artifact", "-key", filepath.Join(keys, "cosign.key"), registry.Repository("charts")+"/hello:"+version)
		}
		public, err := os.ReadFile(filepath.Join(keys, "cosign.pub"))
		Expect(err).NotTo(HaveOccurred())
		Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "release-key"},
			Data: map[string][]byte{"cosign.pub": public}})).To(Succeed())

		c := ociChart("release-signed", "6.0.0", "release-key")
		installed(c)
		digest, err := registry.ManifestDigest(ctx, "charts", "hello", "6.0.0")
		Expect(err).NotTo(HaveOccurred())
		Expect(condition(c, "SourceVerified")).To(And(HavePrefix("True/Succeeded: cosign signature (Sigstore bundle"),
			ContainSubstring("of "+digest+" verified with key cosign.pub")))

		layer, err := registry.LayerDigest(ctx, "charts", "hello", "7.0.0")
		Expect(err).NotTo(HaveOccurred())
		alter.Alter(layer)
		refused(ociChart("release-altered", "7.0.0", "release-key"), "the content served for the signed manifest")
	})

	It("refuses at admission a provider that does not fit the repository", func() {
		c := ociChart("mismatch", "1.0.0", "cosign-keys")
		c.Spec.Chart.Verify.Provider = "helm"
		Expect(env.Client.Create(ctx, c)).To(MatchError(ContainSubstring("provider cosign verifies charts of OCI registries (oci://)")))
	})
})
