package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Files of the client CA in kube-apiserver's certificate directory.
const (
	clientCAFile = "client-ca.crt"
	clientCAKey  = "client-ca.key"
)

// clientCA is kube-apiserver's client certificate authentication, as
// envtest's own, but with the CA's key on disk too: kube-controller-manager
// signs the certificates of approved CertificateSigningRequests for the
// signer kubernetes.io/kube-apiserver-client with it, so a client that got
// one through a CSR is trusted as envtest's users are.
type clientCA struct {
	dir    string
	cert   *x509.Certificate
	key    *ecdsa.PrivateKey
	mu     sync.Mutex
	serial int64
}

var _ envtest.Authn = &clientCA{}

// Configure points kube-apiserver at the CA's certificate.
func (c *clientCA) Configure(workDir string, args *envtest.Arguments) error {
	c.dir = workDir
	args.Set("client-ca-file", c.certFile())
	return nil
}

func (c *clientCA) certFile() string { return filepath.Join(c.dir, clientCAFile) }
func (c *clientCA) keyFile() string  { return filepath.Join(c.dir, clientCAKey) }

// Start makes the CA and writes its certificate and key.
func (c *clientCA) Start() error {
	if c.dir == "" {
		return errors.New("the client CA was started before it was configured")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("making the client CA's key: %w", err)
	}
	cert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: "wavekit-testenv-client-ca"}, key)
	if err != nil {
		return fmt.Errorf("making the client CA: %w", err)
	}
	der, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return fmt.Errorf("encoding the client CA's key: %w", err)
	}
	if err := errors.Join(os.WriteFile(c.certFile(), pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: cert.Raw}), 0o600),
		os.WriteFile(c.keyFile(), der, 0o600)); err != nil {
		return fmt.Errorf("writing the client CA: %w", err)
	}
	c.cert, c.key = cert, key
	return nil
}

// AddUser returns a copy of base that authenticates as user with a
// certificate of the CA.
func (c *clientCA) AddUser(user envtest.User, base *rest.Config) (*rest.Config, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making the key of user %s: %w", user.Name, err)
	}
	c.mu.Lock()
	c.serial++
	serial := c.serial
	c.mu.Unlock()
	now := time.Now()
	template := &x509.Certificate{SerialNumber: big.NewInt(serial),
		Subject:   pkix.Name{CommonName: user.Name, Organization: user.Groups},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(7 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, template, c.cert, key.Public(), c.key)
	if err != nil {
		return nil, fmt.Errorf("making the certificate of user %s: %w", user.Name, err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, fmt.Errorf("encoding the key of user %s: %w", user.Name, err)
	}
	cfg := rest.CopyConfig(base)
	cfg.CertData = pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: der})
	cfg.KeyData = keyPEM
	return cfg, nil
}

// Stop does nothing: envtest removes the directory.
func (c *clientCA) Stop() error { return nil }
