package agent

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/certificate/csr"
	"k8s.io/client-go/util/connrotation"
	"k8s.io/client-go/util/keyutil"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/internal/agent/register"
)

// DefaultCertificateLifetime is the lifetime an agent asks its
// certificate for; it renews it past RotateAt of that.
const DefaultCertificateLifetime = 24 * time.Hour

// requestCertificate asks the hub of cfg for a certificate of the agent of
// the cluster namespace ns, with a new ECDSA P-256 key, valid for
// lifetime, and waits until it is signed (the hub's approver, package
// internal/agent/approve, approves it; kube-controller-manager signs it).
// cfg is the bootstrap token's configuration, or the current certificate's
// to renew. It returns the certificate and the key in PEM.
func requestCertificate(ctx context.Context, cfg *rest.Config, ns string, lifetime time.Duration) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("making the agent's key: %w", err)
	}
	if keyPEM, err = keyutil.MarshalPrivateKeyToPEM(key); err != nil {
		return nil, nil, fmt.Errorf("encoding the agent's key: %w", err)
	}
	request, err := certutil.MakeCSR(key, &pkix.Name{CommonName: register.AgentUser(ns), Organization: []string{register.AgentsGroup}}, nil, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("making the agent's certificate request: %w", err)
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("a client of the hub: %w", err)
	}
	name, uid, err := csr.RequestCertificateWithContext(ctx, clientset, request, "", register.SignerName, &lifetime,
		[]certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth}, key)
	if err != nil {
		return nil, nil, fmt.Errorf("requesting the agent's certificate on the hub: %w", err)
	}
	ctrl.Log.WithName("agent").WithName("certificate").Info("requested a certificate; waiting for the hub's approval", "request", name)
	if certPEM, err = csr.WaitForCertificate(ctx, clientset, name, uid); err != nil {
		return nil, nil, fmt.Errorf("waiting for the certificate of request %s: %w", name, err)
	}
	return certPEM, keyPEM, nil
}

// certificate is the agent's current certificate on the hub, which the
// hub's connections present; set replaces it and closes the connections
// of the one before, so that none goes on with a certificate that will
// expire.
type certificate struct {
	mu     sync.RWMutex
	pair   *tls.Certificate
	leaf   *x509.Certificate
	dialer *connrotation.Dialer
}

// set makes the certificate and key in PEM the current one.
func (c *certificate) set(certPEM, keyPEM []byte) error {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("reading the agent's certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return fmt.Errorf("reading the agent's certificate: %w", err)
	}
	c.mu.Lock()
	old := c.pair
	c.pair, c.leaf = &pair, leaf
	c.mu.Unlock()
	if old != nil && c.dialer != nil {
		c.dialer.CloseAll()
	}
	return nil
}

// current returns the current certificate and its parsed form.
func (c *certificate) current() (*tls.Certificate, *x509.Certificate) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.pair, c.leaf
}

// config returns a configuration of the hub of base (its address and CA,
// none of its credentials) that presents the current certificate.
func (c *certificate) config(base *rest.Config) (*rest.Config, error) {
	out := rest.AnonymousClientConfig(base)
	tlsConfig, err := rest.TLSConfigFor(out)
	if err != nil {
		return nil, fmt.Errorf("the hub's TLS configuration: %w", err)
	}
	if tlsConfig == nil {
		return nil, fmt.Errorf("the hub's address %s is not https: an agent's certificate needs TLS", base.Host)
	}
	tlsConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		pair, _ := c.current()
		return pair, nil
	}
	c.dialer = connrotation.NewDialer((&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext)
	out.Transport = utilnet.SetTransportDefaults(&http.Transport{Proxy: http.ProxyFromEnvironment,
		TLSHandshakeTimeout: 10 * time.Second, TLSClientConfig: tlsConfig, MaxIdleConnsPerHost: 25,
		DialContext: c.dialer.DialContext})
	out.TLSClientConfig = rest.TLSClientConfig{}
	return out, nil
}

// valid tells whether leaf is the certificate of the agent of ns and has
// more than margin left at now.
func valid(leaf *x509.Certificate, ns string, now time.Time, margin time.Duration) bool {
	return leaf != nil && leaf.Subject.CommonName == register.AgentUser(ns) && now.Add(margin).Before(leaf.NotAfter)
}
