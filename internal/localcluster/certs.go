package localcluster

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// certValidity is how long the cluster's certificates are valid: a cluster
// kept for years is not what this is for.
const certValidity = 10 * 365 * 24 * time.Hour

// Names of the files of the cluster's PKI in its pki directory.
const (
	caCertFile     = "ca.crt"
	caKeyFile      = "ca.key"
	serverCertFile = "apiserver.crt"
	serverKeyFile  = "apiserver.key"
	adminCertFile  = "admin.crt"
	adminKeyFile   = "admin.key"
	saKeyFile      = "sa.key" // service account token signing key
)

// adminUser is the client certificate's user, in the group that RBAC lets
// do everything.
const (
	adminUser  = "wavekit-admin"
	adminGroup = "system:masters"
)

// writePKI creates the cluster's CA, the API server's serving certificate
// for 127.0.0.1, localhost and the Service kubernetes (kubernetesIP), a
// client certificate of a cluster administrator, and the key that signs
// service account tokens.
func writePKI(dir, kubernetesIP string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating the CA key: %w", err)
	}
	ca := template(pkix.Name{CommonName: "wavekit-local-ca"})
	ca.IsCA, ca.BasicConstraintsValid = true, true
	ca.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, caKey.Public(), caKey)
	if err != nil {
		return fmt.Errorf("creating the CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	server := template(pkix.Name{CommonName: "kube-apiserver"})
	server.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	server.IPAddresses = []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(kubernetesIP)}
	server.DNSNames = []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"}
	admin := template(pkix.Name{CommonName: adminUser, Organization: []string{adminGroup}})
	admin.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if err := writeCertAndKey(dir, caCertFile, caKeyFile, caDER, caKey); err != nil {
		return err
	}
	for _, leaf := range []struct {
		cert     *x509.Certificate
		certFile string
		keyFile  string
	}{{server, serverCertFile, serverKeyFile}, {admin, adminCertFile, adminKeyFile}} {
		if err := signLeaf(dir, leaf.cert, caCert, caKey, leaf.certFile, leaf.keyFile); err != nil {
			return err
		}
	}
	return writeSigningKey(filepath.Join(dir, saKeyFile))
}

// template is a certificate of subject with a random serial number, valid
// from a minute ago for certValidity.
func template(subject pkix.Name) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      subject,
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
	}
}

// signLeaf creates a key for cert, signs cert with the CA and writes both.
func signLeaf(dir string, cert, caCert *x509.Certificate, caKey crypto.Signer, certFile, keyFile string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating the key of %s: %w", certFile, err)
	}
	der, err := x509.CreateCertificate(rand.Reader, cert, caCert, key.Public(), caKey)
	if err != nil {
		return fmt.Errorf("signing %s: %w", certFile, err)
	}
	return writeCertAndKey(dir, certFile, keyFile, der, key)
}

// writeCertAndKey writes a certificate and its key as PEM files.
func writeCertAndKey(dir, certFile, keyFile string, der []byte, key *ecdsa.PrivateKey) error {
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", keyFile, err)
	}
	if err := writePEM(filepath.Join(dir, certFile), "CERTIFICATE", der); err != nil {
		return err
	}
	return writePEM(filepath.Join(dir, keyFile), "PRIVATE KEY", keyDER)
}

// writeSigningKey writes an RSA key, which every Kubernetes component reads
// for service account tokens.
func writeSigningKey(path string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generating the service account signing key: %w", err)
	}
	return writePEM(path, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key))
}

func writePEM(path, blockType string, der []byte) error {
	data := pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
