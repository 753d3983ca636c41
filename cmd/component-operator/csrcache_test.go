package main_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/agent/register"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	testenv "github.com/wavekit-dev/wavekit/pkg/testenv"
)

var _ = Describe("the hub's cache of certificate requests", func() {
	It("holds the requests of the agents' signer only, none of the kubelets' or other signers'", func() {
		ctx := context.Background()
		env := &testenv.Environment{APIServerOnly: true}
		env.CRDDirectoryPaths = []string{filepath.Join(testcluster.ModuleRoot(), "config", "crd", "bases")}
		env.ErrorIfCRDPathMissing = true
		cfg, err := env.Start()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(env.Stop)
		scheme := k8sruntime.NewScheme()
		Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
		Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wavekit-system"}})).To(Succeed())
		// A hub's requests: its kubelets' (client and serving certificates,
		// renewed all the time), another signer's, and two of the signer
		// agents use (nobody's agent: the approver leaves them undecided).
		for _, signer := range []string{register.SignerName, register.SignerName, "kubernetes.io/kube-apiserver-client-kubelet",
			"kubernetes.io/kubelet-serving", "kubernetes.io/kubelet-serving", "example.com/other"} {
			Expect(c.Create(ctx, certificateRequest(signer))).To(Succeed())
		}
		Expect(operatortest.ApplyRBAC(ctx, c, testcluster.ModuleRoot(), "wavekit", "wavekit-system", map[string]any{})).To(Succeed())
		identity, err := operatortest.ServiceAccountConfig(ctx, c, cfg, "wavekit-system", "wavekit-component-operator")
		Expect(err).NotTo(HaveOccurred())
		hubKubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(testcluster.WriteKubeconfig(identity, hubKubeconfig)).To(Succeed())
		metrics, err := operatortest.FreeLocalAddress()
		Expect(err).NotTo(HaveOccurred())
		session := start(hubKubeconfig, "--source", "web=../../internal/cli/testdata/web", "--metrics-bind-address", metrics, "--metrics-secure=false")

		const resource = "CertificateSigningRequest.certificates.k8s.io"
		Eventually(cached).WithArguments(metrics, resource).WithTimeout(time.Minute).Should(Equal(2),
			"the operator's cache holds the two requests of "+register.SignerName+", not the other four")
		Consistently(cached).WithArguments(metrics, resource).WithTimeout(2 * time.Second).Should(Equal(2))
		Consistently(session).WithTimeout(time.Second).ShouldNot(gexec.Exit())
	})
})

// certificateRequest is a request for signer, of a new key, for a subject
// that is no agent's.
func certificateRequest(signer string) *certificatesv1.CertificateSigningRequest {
	GinkgoHelper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:n1", Organization: []string{"system:nodes"}}}, key)
	Expect(err).NotTo(HaveOccurred())
	usages := []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth}
	if signer == "kubernetes.io/kubelet-serving" {
		usages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth}
	}
	return &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{GenerateName: "csr-"},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: signer, Usages: usages}}
}
