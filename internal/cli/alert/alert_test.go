package alert_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/testing/fakegithub"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/internal/testing/webhooktest"
)

// newTestReceiver starts a receiver that answers status and body.
func newTestReceiver(status int, body string) *webhooktest.Server {
	r := webhooktest.New()
	r.Answer(status, body)
	DeferCleanup(r.Close)
	return r
}

var _ = Describe("alert test", func() {
	var (
		ctx     = context.Background()
		objects client.Client
		ns      string
	)
	BeforeEach(func() {
		scheme := runtime.NewScheme()
		Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
		Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
		var err error
		objects, err = client.New(clitest.Env.Config, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		ns = clitest.NewNamespace()
	})
	providerOf := func(name string, spec v1alpha1.ProviderSpec, secret map[string]string) {
		GinkgoHelper()
		if secret != nil {
			Expect(objects.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: secret})).To(Succeed())
			spec.SecretRef = &v1alpha1.LocalSecretReference{Name: name}
		}
		Expect(objects.Create(ctx, &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec})).To(Succeed())
	}

	It("sends one test alert through a Provider and names the receiver by its host only", func() {
		slack := newTestReceiver(http.StatusOK, "")
		providerOf("slack", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderSlack}, map[string]string{"address": slack.URL + "/services/T0/B0/s3cret"})
		out := clitest.Succeeds("alert", "test", ns+"/slack", "--message", "hello from the platform team")
		Expect(out).To(Equal("sent a test alert through Provider " + ns + "/slack (slack) to " + slack.URL + "\n"))
		Expect(slack.Requests()).To(ConsistOf(HaveField("Path", "/services/T0/B0/s3cret")))
		messages, err := slack.JSON()
		Expect(err).NotTo(HaveOccurred())
		Expect(messages[0]["text"]).To(Equal("Provider " + ns + "/slack: Test: hello from the platform team"))
		clitest.Succeeds("alert", "test", "slack", "-n", ns) // the default message
		bodies := slack.Bodies()
		Expect(bodies[1]).To(ContainSubstring("a test alert from wavekit alert test"))
		Expect(bodies[1]).To(ContainSubstring("Provider " + ns + "/slack works"))
	})

	It("says what went wrong: no such Provider, a missing key, a receiver that refuses, a github Provider without a commit", func() {
		r := clitest.Wavekit("alert", "test", ns+"/nope")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("error: Provider " + ns + "/nope not found"))

		providerOf("signed", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderGenericHMAC, Address: "http://127.0.0.1:1/hook"}, map[string]string{"other": "x"})
		r = clitest.Wavekit("alert", "test", ns+"/signed")
		Expect(r.Stderr).To(ContainSubstring("Provider " + ns + "/signed: its Secret signed has no key token, which a generic-hmac Provider needs"))

		refusing := newTestReceiver(http.StatusNotFound, "no_such_channel")
		providerOf("teams", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderMSTeams}, map[string]string{"address": refusing.URL + "/workflows/s3cret"})
		r = clitest.Wavekit("alert", "test", ns+"/teams")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("sending a test alert through Provider " + ns + "/teams (msteams): POST " + refusing.URL +
			": the receiver answered 404 Not Found: no_such_channel"))
		Expect(r.Stderr).NotTo(ContainSubstring("s3cret"))

		github := fakegithub.New()
		DeferCleanup(github.Close)
		providerOf("github", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderGitHub, Address: "https://github.com/acme/shop", APIURL: github.URL},
			map[string]string{"token": "ghp_s3cret"})
		r = clitest.Wavekit("alert", "test", ns+"/github")
		Expect(r.Stderr).To(ContainSubstring("Provider " + ns + "/github is of type github: it sets the status of a Git commit; give --revision"))
		commit := strings.Repeat("ab", 20)
		Expect(clitest.Succeeds("alert", "test", ns+"/github", "--revision", commit)).To(ContainSubstring("sent a test alert through Provider " + ns + "/github (github)"))
		Expect(github.Requests()).To(Equal([]string{"GET /repos/acme/shop/commits/" + commit + "/statuses", "POST /repos/acme/shop/statuses/" + commit}))
		Expect(github.Statuses("acme", "shop", commit)).To(ConsistOf(HaveField("State", "success")))
		Expect(github.Tokens()).To(HaveEach("Bearer ghp_s3cret"))
	})

	It("reads the Secret as the user: someone who may read Providers but not their Secret cannot send through one", func() {
		thief := newTestReceiver(http.StatusOK, "")
		providerOf("hook", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderGeneric}, map[string]string{"address": thief.URL, "token": "t0ken"})
		Expect(objects.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "provider-reader"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"wavekit.dev"}, Resources: []string{"providers"}, Verbs: []string{"get"}}}})).To(Succeed())
		Expect(objects.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "provider-reader"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "provider-reader"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: "viewer"}}})).To(Succeed())
		cfg, err := operatortest.ServiceAccountConfig(ctx, objects, clitest.Env.Config, ns, "viewer")
		Expect(err).NotTo(HaveOccurred())
		viewer := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(testcluster.WriteKubeconfig(cfg, viewer)).To(Succeed())

		r := clitest.WavekitWith(viewer, "alert", "test", ns+"/hook")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring(`reading its Secret hook: secrets "hook" is forbidden`))
		Expect(r.Stderr).To(ContainSubstring("the test reads the Provider's Secret as you"))
		Expect(thief.Requests()).To(BeEmpty())
		Expect(clitest.Succeeds("alert", "test", ns+"/hook")).To(ContainSubstring("sent a test alert"), "one who may read the Secret can")
	})
})
