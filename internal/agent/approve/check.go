package approve

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/wavekit-dev/wavekit/internal/agent/register"
)

// MaxLifetime bounds the lifetime an agent's certificate may ask for: the
// agent renews it at 80 % of its lifetime, so a certificate outlives its
// agent's loss of rights (a removed cluster) by at most this long.
const MaxLifetime = 7 * 24 * time.Hour

// Claim returns the cluster namespace on the hub whose agent r claims to
// be, and whether r is an agent's request at all: made by an agent's
// bootstrap token or certificate, or asking for an agent's name.
func Claim(r *certificatesv1.CertificateSigningRequest) (string, bool) {
	ours := strings.HasPrefix(r.Spec.Username, register.AgentUserPrefix) ||
		slices.Contains(r.Spec.Groups, register.BootstrappersGroup) || slices.Contains(r.Spec.Groups, register.AgentsGroup)
	request, err := parseRequest(r.Spec.Request)
	if err != nil {
		return "", ours
	}
	ns, named := strings.CutPrefix(request.Subject.CommonName, register.AgentUserPrefix)
	return ns, ours || named
}

// Check returns why r may not be approved as the certificate of the agent
// of the cluster namespace ns, or "" when it may.
func Check(r *certificatesv1.CertificateSigningRequest, ns string) string {
	if r.Spec.SignerName != register.SignerName {
		return fmt.Sprintf("asks the signer %s; agents' certificates come from %s", r.Spec.SignerName, register.SignerName)
	}
	request, err := parseRequest(r.Spec.Request)
	if err != nil {
		return err.Error()
	}
	for _, check := range []func() string{
		func() string { return checkRequester(r, ns) },
		func() string { return checkSubject(request, ns) },
		func() string { return checkKey(request) },
		func() string { return checkUsages(r.Spec.Usages) },
		func() string { return checkLifetime(r.Spec.ExpirationSeconds) },
	} {
		if reason := check(); reason != "" {
			return reason
		}
	}
	return ""
}

// parseRequest decodes and verifies the PEM certificate request of a CSR.
func parseRequest(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, fmt.Errorf("the request is not a PEM CERTIFICATE REQUEST")
	}
	request, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parsing the request: %w", err)
	}
	if err := request.CheckSignature(); err != nil {
		return nil, fmt.Errorf("the request's signature: %w", err)
	}
	return request, nil
}

// checkRequester: a first certificate by the cluster's bootstrap token, a
// renewal by the agent's own certificate. The API server sets the
// requester's name and groups; no client can choose them.
func checkRequester(r *certificatesv1.CertificateSigningRequest, ns string) string {
	if slices.Contains(r.Spec.Groups, register.BootstrapGroup(ns)) {
		return ""
	}
	if r.Spec.Username == register.AgentUser(ns) && slices.Contains(r.Spec.Groups, register.AgentsGroup) {
		return ""
	}
	return fmt.Sprintf("requested by %s (groups %s), neither the bootstrap token nor the certificate of the agent of %s",
		r.Spec.Username, strings.Join(r.Spec.Groups, ", "), ns)
}

// Object identifiers of the two names an agent's subject has.
var (
	oidCommonName   = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidOrganization = asn1.ObjectIdentifier{2, 5, 4, 10}
)

// checkSubject: exactly CN=AgentUser(ns), O=AgentsGroup, and no
// alternative names (kube-apiserver reads CN as the user, each O as a
// group: one more O could be system:masters).
func checkSubject(request *x509.CertificateRequest, ns string) string {
	want := register.AgentUser(ns)
	if request.Subject.CommonName != want || !slices.Equal(request.Subject.Organization, []string{register.AgentsGroup}) {
		return fmt.Sprintf("asks for CN=%q O=%q; the agent of %s gets exactly CN=%q O=%q",
			request.Subject.CommonName, request.Subject.Organization, ns, want, register.AgentsGroup)
	}
	for _, name := range request.Subject.Names {
		if !name.Type.Equal(oidCommonName) && !name.Type.Equal(oidOrganization) {
			return fmt.Sprintf("asks for the subject name %s too; an agent's has CN and O only", name.Type)
		}
	}
	if len(request.DNSNames)+len(request.IPAddresses)+len(request.EmailAddresses)+len(request.URIs) > 0 {
		return "asks for alternative names; an agent's certificate has none"
	}
	return ""
}

// checkKey: ECDSA P-256 or P-384, or RSA of 2048 bits or more.
func checkKey(request *x509.CertificateRequest) string {
	switch key := request.PublicKey.(type) {
	case *ecdsa.PublicKey:
		if key.Curve == elliptic.P256() || key.Curve == elliptic.P384() {
			return ""
		}
	case *rsa.PublicKey:
		if key.N.BitLen() >= 2048 {
			return ""
		}
	}
	return fmt.Sprintf("has a %s key; give ECDSA P-256 or P-384, or RSA of 2048 bits or more", request.PublicKeyAlgorithm)
}

// checkUsages: client authentication, with at most the key usages a
// client's TLS key needs.
func checkUsages(usages []certificatesv1.KeyUsage) string {
	allowed := []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment}
	for _, u := range usages {
		if !slices.Contains(allowed, u) {
			return fmt.Sprintf("asks for the usage %q; an agent's certificate is for client auth only", u)
		}
	}
	if !slices.Contains(usages, certificatesv1.UsageClientAuth) {
		return "does not ask for client auth"
	}
	return ""
}

// checkLifetime: a lifetime is asked for, and at most MaxLifetime (the
// signer's default would be its --cluster-signing-duration, a year).
func checkLifetime(seconds *int32) string {
	if seconds == nil {
		return fmt.Sprintf("asks for no expirationSeconds; an agent's certificate lives at most %s", MaxLifetime)
	}
	if d := time.Duration(*seconds) * time.Second; d > MaxLifetime {
		return fmt.Sprintf("asks for a lifetime of %s; an agent's certificate lives at most %s", d, MaxLifetime)
	}
	return ""
}
