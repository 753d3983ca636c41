package fleet_test

import (
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The endpoints of clusters that do not answer, and of one that stops
// answering: real TCP listeners on the loopback interface, so the operator
// meets the errors a dead cluster gives, from its own dialer and TLS stack.

// refusedAddress is a loopback address nothing listens on, so every dial
// is refused: port 1 (tcpmux), which no test binds, rather than a port
// freed by a listener, which the next listener of the machine may get.
func refusedAddress() string {
	GinkgoHelper()
	const address = "127.0.0.1:1"
	c, err := net.Dial("tcp", address)
	if err == nil {
		_ = c.Close()
	}
	Expect(err).To(MatchError(syscall.ECONNREFUSED), "something listens on %s", address)
	return address
}

// hangUpAddress is the address of a listener that accepts every connection
// and closes it before a byte is read (a load balancer with no backends);
// with reset, it closes with a TCP reset rather than a FIN. It stops when the
// spec ends.
func hangUpAddress(reset bool) string {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(l.Close)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if tcp, ok := c.(*net.TCPConn); ok && reset {
				_ = tcp.SetLinger(0) // close sends RST
			}
			_ = c.Close()
		}
	}()
	return l.Addr().String()
}

// tcpProxy forwards the connections it accepts to a cluster's API server
// until cut, after which its address refuses every connection: a cluster
// that answered and then went away.
type tcpProxy struct {
	listener net.Listener
	backend  string
	mu       sync.Mutex
	conns    []net.Conn
	cutOff   bool
}

// startProxy starts a proxy to the API server at backend (host:port).
func startProxy(backend string) *tcpProxy {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	p := &tcpProxy{listener: l, backend: backend}
	DeferCleanup(p.cut)
	go p.serve()
	return p
}

func (p *tcpProxy) serve() {
	for {
		in, err := p.listener.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.backend)
		if err != nil {
			_ = in.Close()
			continue
		}
		if !p.track(in, out) {
			return
		}
		go pipe(in, out)
		go pipe(out, in)
	}
}

// track records a pair of connections to close when cut; false (and both
// closed) when the proxy was cut meanwhile.
func (p *tcpProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cutOff {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	p.conns = append(p.conns, conns...)
	return true
}

func pipe(to, from net.Conn) {
	_, _ = io.Copy(to, from)
	_ = to.Close()
	_ = from.Close()
}

// cut closes the listener and every forwarded connection.
func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutOff = true
	_ = p.listener.Close()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

func (p *tcpProxy) address() string { return p.listener.Addr().String() }

// hostPort is the host:port of a rest.Config's Host.
func hostPort(cfg *rest.Config) string {
	GinkgoHelper()
	u, err := url.Parse(cfg.Host)
	if err == nil && u.Host == "" {
		err = errors.New("no host")
	}
	Expect(err).NotTo(HaveOccurred(), "Host %q", cfg.Host)
	return u.Host
}

// kubeconfigSecretAt is a cluster Secret namespace/name with e's kubeconfig
// and credentials, but for the server at address (host:port): the
// certificates of e's API server, which name 127.0.0.1, still verify.
func kubeconfigSecretAt(e *testcluster.Env, address, namespace, name string, labels map[string]string) *corev1.Secret {
	GinkgoHelper()
	cfg := rest.CopyConfig(e.Config)
	cfg.Host = "https://" + address
	data, err := testcluster.KubeconfigBytes(cfg)
	Expect(err).NotTo(HaveOccurred())
	secret, err := e.KubeconfigSecret(namespace, name, labels)
	Expect(err).NotTo(HaveOccurred())
	secret.Data["value"] = data
	return secret
}
