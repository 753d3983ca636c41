package agent_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/agent"
	"github.com/wavekit-dev/wavekit/internal/agent/approve"
	"github.com/wavekit-dev/wavekit/internal/agent/register"
	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/testing/fleettest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// Registration by certificate: cluster r1's agent is given only a
// bootstrap kubeconfig; r2 is registered (a bootstrap token, a namespace)
// but runs no agent: its namespace holds a work r1's agent must not reach.
var _ = Describe("an agent that registers with a bootstrap token and a certificate", Ordered, func() {
	const (
		credentialsNS = "wavekit-agent"
		lifetime      = 10 * time.Minute // the API server's floor
	)
	var (
		member        *testcluster.Env
		nsR1, nsR2    string
		boot1, boot2  *rest.Config
		running       *runningAgent
		set           = &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "reg"}}
		secretKey     = client.ObjectKey{Namespace: credentialsNS, Name: "hub-credentials"}
		otherWork     = &v1alpha1.ComponentWork{}
		registeredFor time.Duration
		startWith     func(hubConfig *rest.Config, secret client.ObjectKey, rotateAt float64)
	)
	start := func(rotateAt float64) { startWith(boot1, secretKey, rotateAt) }
	startWith = func(hubConfig *rest.Config, secret client.ObjectKey, rotateAt float64) {
		runCtx, cancel := context.WithCancel(ctx)
		running = &runningAgent{cancel: cancel, done: make(chan error, 1)}
		opts := agent.Options{Hub: rest.CopyConfig(hubConfig), Namespace: nsR1, Local: member.Config, LeaseDuration: leaseDuration,
			Holder: "r1", CredentialsSecret: secret, CertificateLifetime: lifetime, RotateAt: rotateAt,
			Operator: operator.Options{Name: "wavekit.dev", Sources: map[string]string{"site": siteSource()}, CacheDir: GinkgoT().TempDir()}}
		go func() { running.done <- agent.Run(runCtx, opts) }()
	}

	BeforeAll(func() {
		Expect(hub.StartSigner()).To(Succeed())
		var err error
		member, err = testcluster.Start(testcluster.Options{Scheme: hub.Scheme})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(member.Stop()).To(Succeed()) })
		_, err = envtest.InstallCRDs(member.Config, envtest.CRDInstallOptions{
			Paths: []string{filepath.Join(testcluster.ModuleRoot(), "config", "crd", "bases")}, ErrorIfPathMissing: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(member.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: credentialsNS}})).To(Succeed())

		boot1, nsR1 = registerBootstrap("r1", "canary")
		boot2, nsR2 = registerBootstrap("r2", "main")
		otherWork = &v1alpha1.ComponentWork{ObjectMeta: metav1.ObjectMeta{Namespace: nsR2, Name: "reg"},
			Spec: v1alpha1.ComponentWorkSpec{Namespace: ns, Name: "reg-r2", Component: v1alpha1.ComponentSpec{Source: "site"}}}
		Expect(hub.Client.Create(ctx, otherWork)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(hub.Client.Delete(ctx, otherWork))).To(Succeed()) })

		set.Spec = v1alpha1.ComponentSetSpec{
			Template:  v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "site", Values: fleettest.Values("r1")}},
			Placement: &v1alpha1.Placement{ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{"fleet": "reg", "wave": "canary"}}},
		}
		Expect(hub.Client.Create(ctx, set)).To(Succeed())
		DeferCleanup(func() {
			Expect(hub.Client.Delete(ctx, set)).To(Succeed())
			Eventually(func() []v1alpha1.ComponentWork {
				var works v1alpha1.ComponentWorkList
				Expect(hub.Client.List(ctx, &works, client.InNamespace(nsR1))).To(Succeed())
				return works.Items
			}).WithTimeout(timeout).Should(BeEmpty(), "the agent removed the set's Component and the hub its work")
			if running != nil {
				running.stop()
			}
		})
	})

	It("registers with only the bootstrap kubeconfig: gets a certificate, keeps it in its cluster, and its cluster becomes Ready", func() {
		started := time.Now()
		start(agent.DefaultRotateAt)
		Eventually(func() []string { return hub.Get(set).Status.Clusters }).WithTimeout(timeout).Should(ConsistOf(And(HavePrefix("r1"), ContainSubstring(": Ready"))))
		registeredFor = time.Since(started)
		AddReportEntry("agent start to its cluster Ready, registering by certificate", registeredFor.String())

		leaf := storedCertificate(member, secretKey)
		Expect(leaf.Subject.CommonName).To(Equal("wavekit:agent:" + nsR1))
		Expect(leaf.Subject.Organization).To(Equal([]string{"wavekit:agents"}))
		Expect(leaf.ExtKeyUsage).To(Equal([]x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}))
		Expect(leaf.NotAfter.Sub(time.Now())).To(BeNumerically("<=", lifetime))
		requests := requestsBy("system:bootstrap:" + tokenID(boot1))
		Expect(requests).To(HaveLen(1))
		Expect(requests[0].Status.Conditions).To(ContainElement(And(
			HaveField("Type", certificatesv1.CertificateApproved), HaveField("Reason", approve.ReasonApproved))))
		Expect(requests[0].Status.Certificate).NotTo(BeEmpty())
	})

	It("refuses the bootstrap token anything but certificate requests: it reads no work, no Secret, no Lease", func() {
		c := clientOf(boot1)
		Expect(c.List(ctx, &v1alpha1.ComponentWorkList{}, client.InNamespace(nsR1))).To(Satisfy(apierrors.IsForbidden))
		Expect(c.Get(ctx, client.ObjectKey{Namespace: nsR1, Name: "reg"}, &v1alpha1.ComponentWork{})).To(Satisfy(apierrors.IsForbidden))
		Expect(c.List(ctx, &corev1.SecretList{}, client.InNamespace(ns))).To(Satisfy(apierrors.IsForbidden))
		Expect(c.Get(ctx, client.ObjectKey{Namespace: nsR1, Name: fleet.AgentLease}, &coordinationv1.Lease{})).To(Satisfy(apierrors.IsForbidden))
		Expect(c.List(ctx, &certificatesv1.CertificateSigningRequestList{})).To(Succeed(), "what it may do")
	})

	It("denies a certificate request of r1's bootstrap token for r2's identity", func() {
		r := requestAs(boot1, "wavekit:agent:"+nsR2, []string{"wavekit:agents"}, register.SignerName,
			[]certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}, ptr.To(int32(600)))
		Eventually(decision).WithArguments(r).WithTimeout(timeout).Should(HavePrefix("Denied: requested by system:bootstrap:" + tokenID(boot1)))
		Expect(get2(r).Status.Certificate).To(BeEmpty())
	})

	It("denies the request of a cluster that is no longer registered, with its own bootstrap token", func() {
		boot3, nsR3 := registerBootstrap("r3", "main")
		namespace := &corev1.Namespace{}
		Expect(hub.Client.Get(ctx, client.ObjectKey{Name: nsR3}, namespace)).To(Succeed())
		Expect(namespace.Labels).To(HaveKey("wavekit.dev/agent-of"), "register labels the cluster's namespace")
		patch := client.MergeFrom(namespace.DeepCopy())
		delete(namespace.Labels, "wavekit.dev/agent-of")
		Expect(hub.Client.Patch(ctx, namespace, patch)).To(Succeed())

		r := requestAs(boot3, "wavekit:agent:"+nsR3, []string{"wavekit:agents"}, register.SignerName,
			[]certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}, ptr.To(int32(600)))
		Eventually(decision).WithArguments(r).WithTimeout(timeout).Should(HavePrefix("Denied: namespace " + nsR3 + " is not a registered cluster's"))
		Expect(get2(r).Status.Certificate).To(BeEmpty())
	})

	It("denies requests for server auth, another organization, no expiry or a long one; leaves one for another signer alone", func() {
		clientAuth := []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}
		for _, c := range []struct {
			org    []string
			signer string
			usages []certificatesv1.KeyUsage
			expiry *int32
			want   string
		}{
			{[]string{"wavekit:agents"}, register.SignerName, []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageServerAuth}, ptr.To(int32(600)),
				`Denied: asks for the usage "server auth"`},
			{[]string{"wavekit:agents", "system:nodes"}, register.SignerName, clientAuth, ptr.To(int32(600)), "Denied: asks for CN="},
			{[]string{"wavekit:agents"}, register.SignerName, clientAuth, nil, "Denied: asks for no expirationSeconds"},
			{[]string{"wavekit:agents"}, register.SignerName, clientAuth, ptr.To(int32(30 * 24 * 3600)), "Denied: asks for a lifetime of 720h0m0s"},
		} {
			r := requestAs(boot2, "wavekit:agent:"+nsR2, c.org, c.signer, c.usages, c.expiry)
			Eventually(decision).WithArguments(r).WithTimeout(timeout).Should(HavePrefix(c.want))
			Expect(get2(r).Status.Certificate).To(BeEmpty())
		}

		// Not the operator's to decide, and not in its cache (the
		// requests of register.SignerName only): no decision, no Event.
		r := requestAs(boot2, "wavekit:agent:"+nsR2, []string{"wavekit:agents"}, "example.com/other", clientAuth, ptr.To(int32(600)))
		Consistently(csrEvents).WithArguments(r).WithTimeout(3 * time.Second).Should(BeEmpty())
		Expect(decision(r)).To(Equal("undecided"))
	})

	It("refuses r1's certificate r2's work and status, and grants it its own", func() {
		c := clientOf(certificateConfig(member, secretKey, boot1))
		theirs := &v1alpha1.ComponentWork{}
		Expect(c.Get(ctx, client.ObjectKeyFromObject(otherWork), theirs)).To(Satisfy(apierrors.IsForbidden))
		Expect(c.List(ctx, &v1alpha1.ComponentWorkList{}, client.InNamespace(nsR2))).To(Satisfy(apierrors.IsForbidden))
		Expect(hub.Client.Get(ctx, client.ObjectKeyFromObject(otherWork), theirs)).To(Succeed())
		theirs.Status.RenderDigest = "sha256:forged"
		Expect(c.Status().Update(ctx, theirs)).To(Satisfy(apierrors.IsForbidden))

		mine := &v1alpha1.ComponentWork{}
		Expect(c.Get(ctx, client.ObjectKey{Namespace: nsR1, Name: "reg"}, mine)).To(Succeed(), "so that the refusals above are about the namespace")
		mine.Spec.Component.Source = "forged"
		Expect(c.Update(ctx, mine)).To(Satisfy(apierrors.IsForbidden), "it writes status only")
	})

	It("renews its certificate with the current one, and a restarted agent needs no bootstrap token", func() {
		before := storedCertificate(member, secretKey)
		running.stop()
		var tokens corev1.SecretList
		Expect(hub.Client.List(ctx, &tokens, client.InNamespace(metav1.NamespaceSystem), client.MatchingLabels{"wavekit.dev/agent-bootstrap": nsR1})).To(Succeed())
		for i := range tokens.Items {
			Expect(hub.Client.Delete(ctx, &tokens.Items[i])).To(Succeed())
		}
		Eventually(func() error { return clientOf(boot1).List(ctx, &certificatesv1.CertificateSigningRequestList{}) }).
			WithTimeout(timeout).Should(Satisfy(apierrors.IsUnauthorized), "the bootstrap token is gone")

		// Renew at 1 % of the lifetime: kube-controller-manager backdates
		// certificates five minutes, so the one kept is due at once.
		start(0.01)
		Eventually(func() string { return storedCertificate(member, secretKey).SerialNumber.String() }).
			WithTimeout(timeout).ShouldNot(Equal(before.SerialNumber.String()))
		renewals := requestsBy("wavekit:agent:" + nsR1)
		Expect(renewals).NotTo(BeEmpty())
		Expect(renewals[0].Status.Conditions).To(ContainElement(HaveField("Type", certificatesv1.CertificateApproved)))

		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Template.Spec.Values = fleettest.Values("renewed") })
		Eventually(func() []string { return hub.Get(set).Status.Clusters }).WithTimeout(timeout).Should(ConsistOf(And(HavePrefix("r1"), ContainSubstring(": Ready"))))
		Eventually(func() string {
			var cm corev1.ConfigMap
			if err := member.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "reg-config"}, &cm); err != nil {
				return err.Error()
			}
			return cm.Data["greeting"]
		}).WithTimeout(timeout).Should(Equal("renewed"), "the agent works on with the renewed certificate")
	})

	It("keeps a renewed ServiceAccount token in the credentials Secret in token mode", func() {
		running.stop()
		tokenConfig, err := register.Credential(ctx, hub.Client, hub.Config, nsR1, time.Hour)
		Expect(err).NotTo(HaveOccurred())
		tokenSecret := client.ObjectKey{Namespace: credentialsNS, Name: "hub-token"}
		startWith(tokenConfig, tokenSecret, rotateAt)
		kept := func() string {
			var secret corev1.Secret
			if err := member.Client.Get(ctx, tokenSecret, &secret); err != nil {
				return err.Error()
			}
			return string(secret.Data["token"])
		}
		Eventually(kept).WithTimeout(timeout).Should(Equal(tokenConfig.BearerToken), "seeded from the kubeconfig")
		Eventually(kept).WithTimeout(timeout).ShouldNot(Equal(tokenConfig.BearerToken), "renewed")
		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Template.Spec.Values = fleettest.Values("token") })
		Eventually(func() string {
			var cm corev1.ConfigMap
			if err := member.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "reg-config"}, &cm); err != nil {
				return err.Error()
			}
			return cm.Data["greeting"]
		}).WithTimeout(timeout).Should(Equal("token"))
		Eventually(func() []string { return hub.Get(set).Status.Clusters }).WithTimeout(timeout).Should(ConsistOf(And(HavePrefix("r1"), ContainSubstring(": Ready"))))
	})
})

// registerBootstrap registers cluster with wavekit agent register
// --bootstrap, labelled fleet=reg and wave, and returns the bootstrap
// kubeconfig's configuration and the cluster's namespace on the hub.
func registerBootstrap(cluster, wave string) (*rest.Config, string) {
	GinkgoHelper()
	out := filepath.Join(GinkgoT().TempDir(), cluster+"-bootstrap.kubeconfig")
	var stdout, stderr bytes.Buffer
	root := cli.NewRootCommand(&stdout, &stderr)
	root.SetArgs([]string{"--kubeconfig", admin, "agent", "register", ns + "/" + cluster, "-l", "fleet=reg", "-l", "wave=" + wave,
		"--bootstrap", "--bootstrap-ttl", "1h", "-o", out})
	Expect(root.ExecuteContext(ctx)).To(Succeed(), stderr.String())
	Expect(stdout.String()).To(ContainSubstring("--credentials-secret"))
	cfg, err := clientcmd.BuildConfigFromFlags("", out)
	Expect(err).NotTo(HaveOccurred())
	Expect(register.IsBootstrapToken(cfg.BearerToken)).To(BeTrue(), "the kubeconfig holds a bootstrap token")
	Expect(cfg.CertData).To(BeEmpty())
	return cfg, fleet.WorkNamespace(ns, cluster)
}

// clientOf is a client of the hub with cfg's credential.
func clientOf(cfg *rest.Config) client.Client {
	GinkgoHelper()
	c, err := client.New(cfg, client.Options{Scheme: hub.Scheme})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// storedCertificate is the certificate the agent keeps in its cluster.
func storedCertificate(member *testcluster.Env, key client.ObjectKey) *x509.Certificate {
	GinkgoHelper()
	var secret corev1.Secret
	Expect(member.Client.Get(ctx, key, &secret)).To(Succeed())
	Expect(secret.Type).To(Equal(corev1.SecretTypeTLS))
	certs, err := certutil.ParseCertsPEM(secret.Data[corev1.TLSCertKey])
	Expect(err).NotTo(HaveOccurred())
	return certs[0]
}

// certificateConfig reaches the hub of boot with the certificate the agent
// keeps in its cluster, as someone who stole it would.
func certificateConfig(member *testcluster.Env, key client.ObjectKey, boot *rest.Config) *rest.Config {
	GinkgoHelper()
	var secret corev1.Secret
	Expect(member.Client.Get(ctx, key, &secret)).To(Succeed())
	cfg := rest.AnonymousClientConfig(boot)
	cfg.CertData, cfg.KeyData = secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey]
	return cfg
}

// tokenID is the id of cfg's bootstrap token.
func tokenID(cfg *rest.Config) string { return strings.SplitN(cfg.BearerToken, ".", 2)[0] }

// requestsBy are the certificate requests user made, newest first.
func requestsBy(user string) []certificatesv1.CertificateSigningRequest {
	GinkgoHelper()
	var list certificatesv1.CertificateSigningRequestList
	Expect(hub.Client.List(ctx, &list)).To(Succeed())
	var out []certificatesv1.CertificateSigningRequest
	for _, r := range list.Items {
		if r.Spec.Username == user {
			out = append([]certificatesv1.CertificateSigningRequest{r}, out...)
		}
	}
	return out
}

// requestAs makes a certificate request with cfg's credential, for a new
// key and the subject CN=cn, O=org.
func requestAs(cfg *rest.Config, cn string, org []string, signer string, usages []certificatesv1.KeyUsage, expiry *int32) *certificatesv1.CertificateSigningRequest {
	GinkgoHelper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: org}}, key)
	Expect(err).NotTo(HaveOccurred())
	r := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{GenerateName: "attack-"},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: signer, Usages: usages, ExpirationSeconds: expiry}}
	Expect(clientOf(cfg).Create(ctx, r)).To(Succeed())
	return r
}

func get2(r *certificatesv1.CertificateSigningRequest) *certificatesv1.CertificateSigningRequest {
	GinkgoHelper()
	got := &certificatesv1.CertificateSigningRequest{}
	Expect(hub.Client.Get(ctx, client.ObjectKeyFromObject(r), got)).To(Succeed())
	return got
}

// decision is "Approved: message", "Denied: message" or "undecided".
func decision(r *certificatesv1.CertificateSigningRequest) string {
	for _, c := range get2(r).Status.Conditions {
		if c.Type == certificatesv1.CertificateApproved || c.Type == certificatesv1.CertificateDenied {
			return string(c.Type) + ": " + c.Message
		}
	}
	return "undecided"
}

// csrEvents are the notes of the Events about r.
func csrEvents(r *certificatesv1.CertificateSigningRequest) []string {
	GinkgoHelper()
	var events eventsv1.EventList
	Expect(hub.Client.List(ctx, &events, client.InNamespace(metav1.NamespaceDefault))).To(Succeed())
	var notes []string
	for _, e := range events.Items {
		if e.Regarding.Kind == "CertificateSigningRequest" && e.Regarding.Name == r.Name {
			notes = append(notes, e.Note)
		}
	}
	return notes
}
