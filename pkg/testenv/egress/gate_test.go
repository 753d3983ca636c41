package egress_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apiserver/pkg/server/egressselector"

	"github.com/wavekit-dev/wavekit/pkg/testenv/egress"
)

// These specs dial through the gate with kube-apiserver's own egress
// dialer, built from the configuration file WriteConfig writes: what they
// see is what kube-apiserver sees.
var _ = Describe("the gate over its Unix socket", func() {
	var (
		gate   *egress.Gate
		dialer map[string]func(ctx context.Context, network, addr string) (net.Conn, error)
	)
	ctx := context.Background()

	BeforeEach(func() {
		dir, err := os.MkdirTemp("", "egress-") // short: a socket path has a limit
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, dir)
		socket := filepath.Join(dir, egress.SocketFile)
		gate, err = egress.Listen(socket, GinkgoLogr)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(gate.Close()).To(Succeed()) })
		gate.SetOwners(owners)
		dialer = apiserverDialers(filepath.Join(dir, egress.ConfigFile), socket)
	})

	It("tunnels to a loopback target, both ways, for the cluster and the controlplane selections", func() {
		echo := echoServer()
		for _, selection := range []string{"cluster", "controlplane"} {
			conn, err := dialer[selection](ctx, "tcp", echo)
			Expect(err).NotTo(HaveOccurred(), selection)
			_, err = fmt.Fprintln(conn, "hello through "+selection)
			Expect(err).NotTo(HaveOccurred())
			Expect(bufio.NewReader(conn).ReadString('\n')).To(Equal("hello through " + selection + "\n"))
			Expect(conn.Close()).To(Succeed())
		}
	})

	It("refuses a Service's address with the reason in kube-apiserver's error", func() {
		_, err := dialer["cluster"](ctx, "tcp", "198.18.117.139:443")
		Expect(err).To(MatchError(fmt.Sprintf("proxy error from %s while dialing 198.18.117.139:443, code 502: "+
			"502 no container serves Service keda/keda-admission-webhooks in the local cluster", gate.Socket)))
	})

	It("refuses a webhook's URL off the machine, resolving no name", func() {
		_, err := dialer["controlplane"](ctx, "tcp", "webhook.example.com:443")
		Expect(err).To(MatchError(HaveSuffix("code 502: 502 the local cluster sends nothing off the machine: " +
			"webhook.example.com is no Service, pod or Node of it")))
	})

	It("says so when nothing listens on a loopback target", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		closed := l.Addr().String()
		Expect(l.Close()).To(Succeed())
		_, err = dialer["cluster"](ctx, "tcp", closed)
		Expect(err).To(MatchError(And(ContainSubstring("code 502: 502 nothing answers on "+closed+" on this machine"),
			ContainSubstring("connection refused"))))
	})

	It("ends the open tunnels and removes its socket on Close", func() {
		conn, err := dialer["cluster"](ctx, "tcp", echoServer())
		Expect(err).NotTo(HaveOccurred())
		Expect(gate.Close()).To(Succeed())
		Expect(conn.SetReadDeadline(time.Now().Add(time.Minute))).To(Succeed())
		_, err = conn.Read(make([]byte, 1))
		Expect(err).To(MatchError(io.EOF))
		Expect(gate.Socket).NotTo(BeAnExistingFile())
	})
})

var _ = Describe("Listen", func() {
	It("replaces the socket a gate that ended left behind, and nothing else", func() {
		dir, err := os.MkdirTemp("", "egress-")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, dir)
		socket := filepath.Join(dir, egress.SocketFile)
		left, err := net.Listen("unix", socket)
		Expect(err).NotTo(HaveOccurred())
		left.(*net.UnixListener).SetUnlinkOnClose(false)
		Expect(left.Close()).To(Succeed())

		gate, err := egress.Listen(socket, GinkgoLogr)
		Expect(err).NotTo(HaveOccurred())
		Expect(gate.Close()).To(Succeed())

		file := filepath.Join(dir, "file")
		Expect(os.WriteFile(file, nil, 0o600)).To(Succeed())
		_, err = egress.Listen(file, GinkgoLogr)
		Expect(err).To(MatchError(ContainSubstring("listening on the egress gate's socket " + file)))
	})
})

// apiserverDialers writes the gate's configuration to path, reads and
// validates it as kube-apiserver does, and returns kube-apiserver's dialers
// of the cluster and controlplane selections.
func apiserverDialers(path, socket string) map[string]func(context.Context, string, string) (net.Conn, error) {
	GinkgoHelper()
	Expect(egress.WriteConfig(path, socket)).To(Succeed())
	config, err := egressselector.ReadEgressSelectorConfiguration(path)
	Expect(err).NotTo(HaveOccurred())
	Expect(egressselector.ValidateEgressSelectorConfiguration(config)).To(BeEmpty())
	selector, err := egressselector.NewEgressSelector(config)
	Expect(err).NotTo(HaveOccurred())
	dialers := map[string]func(context.Context, string, string) (net.Conn, error){}
	for name, selection := range map[string]egressselector.EgressType{
		"cluster": egressselector.Cluster, "controlplane": egressselector.ControlPlane, "etcd": egressselector.Etcd,
	} {
		dial, err := selector.Lookup(selection.AsNetworkContext())
		Expect(err).NotTo(HaveOccurred())
		Expect(dial).NotTo(BeNil(), name)
		dialers[name] = dial
	}
	return dialers
}

// echoServer listens on 127.0.0.1 and echoes what each connection sends,
// until the spec ends.
func echoServer() string {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(l.Close)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_, _ = io.Copy(conn, conn)
			}()
		}
	}()
	return l.Addr().String()
}
