package approve_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/wavekit-dev/wavekit/internal/agent/approve"
)

const ns = "fleet-east-1a2b3c4d"

// request is a CSR of the agent of ns by its bootstrap token, as the agent
// makes it; change alters it.
func request(t *testing.T, change func(*x509.CertificateRequest, *certificatesv1.CertificateSigningRequest)) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.CertificateRequest{Subject: pkix.Name{CommonName: "wavekit:agent:" + ns, Organization: []string{"wavekit:agents"}}}
	seconds := int32(600)
	r := &certificatesv1.CertificateSigningRequest{Spec: certificatesv1.CertificateSigningRequestSpec{
		SignerName: "kubernetes.io/kube-apiserver-client", ExpirationSeconds: &seconds,
		Usages:   []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth},
		Username: "system:bootstrap:abcdef", Groups: []string{"system:bootstrappers", "system:bootstrappers:wavekit", "system:bootstrappers:wavekit:" + ns}}}
	if change != nil {
		change(template, r)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, template, key)
	if err != nil {
		t.Fatal(err)
	}
	r.Spec.Request = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
	return r
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*x509.CertificateRequest, *certificatesv1.CertificateSigningRequest)
		want   string // a part of the reason; "" approves
	}{
		{"the agent's first request", nil, ""},
		{"a renewal by its certificate", func(_ *x509.CertificateRequest, r *certificatesv1.CertificateSigningRequest) {
			r.Spec.Username, r.Spec.Groups = "wavekit:agent:"+ns, []string{"wavekit:agents", "system:authenticated"}
		}, ""},
		{"another cluster's token", func(_ *x509.CertificateRequest, r *certificatesv1.CertificateSigningRequest) {
			r.Spec.Groups = []string{"system:bootstrappers", "system:bootstrappers:wavekit", "system:bootstrappers:wavekit:other"}
		}, "neither the bootstrap token nor the certificate"},
		{"another cluster's certificate", func(_ *x509.CertificateRequest, r *certificatesv1.CertificateSigningRequest) {
			r.Spec.Username, r.Spec.Groups = "wavekit:agent:other", []string{"wavekit:agents"}
		}, "neither the bootstrap token nor the certificate"},
		{"an extra organization", func(t *x509.CertificateRequest, _ *certificatesv1.CertificateSigningRequest) {
			t.Subject.Organization = append(t.Subject.Organization, "system:nodes")
		}, "asks for CN="},
		{"an extra subject name", func(t *x509.CertificateRequest, _ *certificatesv1.CertificateSigningRequest) {
			t.Subject.OrganizationalUnit = []string{"x"}
		}, "subject name 2.5.4.11"},
		{"a DNS name", func(t *x509.CertificateRequest, _ *certificatesv1.CertificateSigningRequest) {
			t.DNSNames = []string{"hub.example.com"}
		}, "alternative names"},
		{"server auth", func(_ *x509.CertificateRequest, r *certificatesv1.CertificateSigningRequest) {
			r.Spec.Usages = append(r.Spec.Usages, certificatesv1.UsageServerAuth)
		}, `usage "server auth"`},
		{"no client auth", func(_ *x509.CertificateRequest, r *certificatesv1.CertificateSigningRequest) {
			r.Spec.Usages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature}
		}, "does not ask for client auth"},
		{"no expiry", func(_ *x509.CertificateRequest, r *certificatesv1.CertificateSigningRequest) {
			r.Spec.ExpirationSeconds = nil
		}, "no expirationSeconds"},
		{"another signer", func(_ *x509.CertificateRequest, r *certificatesv1.CertificateSigningRequest) {
			r.Spec.SignerName = "kubernetes.io/kubelet-serving"
		}, "asks the signer kubernetes.io/kubelet-serving"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := request(t, c.change)
			claimed, ours := approve.Claim(r)
			if !ours || claimed != ns {
				t.Fatalf("Claim = %q, %v; want %q, true", claimed, ours, ns)
			}
			got := approve.Check(r, claimed)
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Fatalf("Check = %q; want a reason containing %q", got, c.want)
			}
		})
	}
}

func TestClaimLeavesOthersAlone(t *testing.T) {
	r := request(t, func(t *x509.CertificateRequest, r *certificatesv1.CertificateSigningRequest) {
		t.Subject = pkix.Name{CommonName: "system:node:worker-1", Organization: []string{"system:nodes"}}
		r.Spec.Username, r.Spec.Groups = "system:bootstrap:abcdef", []string{"system:bootstrappers", "system:bootstrappers:kubeadm:default-node-token"}
	})
	if _, ours := approve.Claim(r); ours {
		t.Fatal("a kubelet's request is taken for an agent's")
	}
}
