package testenv_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509/pkix"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/certificate/csr"
	"k8s.io/client-go/util/keyutil"

	"github.com/wavekit-dev/wavekit/pkg/testenv"
)

// A whole cluster authenticates bootstrap tokens, and its
// kube-controller-manager signs an approved request of the signer
// kubernetes.io/kube-apiserver-client with the CA the API server trusts:
// the certificate it issues authenticates as its subject.
func TestBootstrapTokensAndClientCertificates(t *testing.T) {
	env := &testenv.Environment{Nodes: 1}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin := kubernetes.NewForConfigOrDie(cfg)

	_, err = admin.CoreV1().Secrets(metav1.NamespaceSystem).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "bootstrap-token-abcdef"}, Type: corev1.SecretTypeBootstrapToken,
		StringData: map[string]string{"token-id": "abcdef", "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bootstrap := rest.AnonymousClientConfig(cfg)
	bootstrap.BearerToken = "abcdef.0123456789abcdef"
	if got := whoAmI(ctx, t, bootstrap); got != "system:bootstrap:abcdef" {
		t.Errorf("the bootstrap token authenticates as %q", got)
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	request, err := certutil.MakeCSR(key, &pkix.Name{CommonName: "tester"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	lifetime := 10 * time.Minute
	name, uid, err := csr.RequestCertificateWithContext(ctx, admin, request, "", certificatesv1.KubeAPIServerClientSignerName,
		&lifetime, []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}, key)
	if err != nil {
		t.Fatal(err)
	}
	r, err := admin.CertificatesV1().CertificateSigningRequests().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.Status.Conditions = append(r.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Test"})
	if _, err := admin.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, name, r, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	certPEM, err := csr.WaitForCertificate(ctx, admin, name, uid)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	client := rest.AnonymousClientConfig(cfg)
	client.CertData, client.KeyData = certPEM, keyPEM
	if got := whoAmI(ctx, t, client); got != "tester" {
		t.Errorf("the signed certificate authenticates as %q", got)
	}
}

// whoAmI is the user name the API server sees with cfg.
func whoAmI(ctx context.Context, t *testing.T, cfg *rest.Config) string {
	t.Helper()
	review, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().
		Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return review.Status.UserInfo.Username
}
