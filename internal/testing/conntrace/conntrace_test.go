package conntrace_test

import (
	"fmt"
	"io"
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/conntrace"
)

var _ = Describe("tracing a process", func() {
	// The negative control of every check built on the tracer: a process
	// that connects to 198.18.0.1 once the tracer has attached is reported,
	// its connect to 127.0.0.1 and ::1 is not. The connects are UDP: they
	// send no packet.
	It("reports a connect off the machine, and none to loopback", func() {
		child, lines := connectingChild("198.18.0.1", "127.0.0.1", "::1")
		tracer, err := conntrace.Attach(child.Process.Pid)
		Expect(err).NotTo(HaveOccurred())
		_, err = io.WriteString(lines, "go\n") // connect now, then exit
		Expect(err).NotTo(HaveOccurred())
		Expect(lines.Close()).To(Succeed())
		Expect(child.Wait()).To(Succeed())

		connects, err := tracer.Stop()
		Expect(err).NotTo(HaveOccurred())
		Expect(addresses(connects)).To(ConsistOf("198.18.0.1:9", "127.0.0.1:9", "[::1]:9"))
		Expect(addresses(conntrace.OffMachine(connects))).To(ConsistOf("198.18.0.1:9"))
	})

	It("says why when it cannot attach", func() {
		_, err := conntrace.Attach(1 << 30)
		Expect(err).To(MatchError(ContainSubstring("attaching strace to process 1073741824: strace ended before it attached")))
	})
})

var _ = Describe("Parse", func() {
	It("reads IPv4, IPv6 and Unix socket connects, interrupted ones too", func() {
		connects, err := conntrace.Parse(strings.NewReader(strings.Join([]string{
			`4242  connect(7, {sa_family=AF_INET, sin_port=htons(2379), sin_addr=inet_addr("127.0.0.1")}, 16) = 0`,
			`4243  connect(9, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("10.96.117.139")}, 16 <unfinished ...>`,
			`4243  <... connect resumed>) = -1 EINPROGRESS (Operation now in progress)`,
			`4244  connect(3, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::ffff:198.19.0.7", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH (Network is unreachable)`,
			`4244  connect(3, {sa_family=AF_INET6, sin6_port=htons(6443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6_addr), sin6_scope_id=0}, 28) = 0`,
			`4245  connect(12, {sa_family=AF_UNIX, sun_path="/tmp/egress/egress.sock"}, 27) = 0`,
			`4245  +++ exited with 0 +++`,
		}, "\n")))
		Expect(err).NotTo(HaveOccurred())
		Expect(addresses(connects)).To(Equal([]string{
			"127.0.0.1:2379", "10.96.117.139:443", "[::ffff:198.19.0.7]:443", "[::ffff:127.0.0.1]:6443", "/tmp/egress/egress.sock",
		}))
		Expect(addresses(conntrace.OffMachine(connects))).To(Equal([]string{"10.96.117.139:443", "[::ffff:198.19.0.7]:443"}))
		Expect(conntrace.ToSocket(connects, "/tmp/egress/egress.sock")).To(Equal(1))
		Expect(conntrace.ToSocket(connects, "/tmp/other.sock")).To(BeZero())
	})

	It("fails on a connect to an IP address whose address it cannot read", func() {
		_, err := conntrace.Parse(strings.NewReader(`1  connect(3, {sa_family=AF_INET, sin_port=htons(443), sin_addr=0x0a000001}, 16) = 0`))
		Expect(err).To(MatchError(ContainSubstring("reading the address of strace's line")))
	})
})

// connectingChild starts bash, which, once a line comes on the returned
// writer, opens a UDP socket connected to port 9 of each address and exits.
func connectingChild(addresses ...string) (*exec.Cmd, io.WriteCloser) {
	GinkgoHelper()
	script := "read -r _"
	for i, a := range addresses {
		script += fmt.Sprintf("; exec %d<>/dev/udp/%s/9", i+3, a)
	}
	child := exec.Command("bash", "-c", script)
	lines, err := child.StdinPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(child.Start()).To(Succeed())
	DeferCleanup(func() { _ = child.Process.Kill() })
	return child, lines
}

// addresses are the IP addresses and ports, or socket paths, connected to.
func addresses(connects []conntrace.Connect) []string {
	var out []string
	for _, c := range connects {
		out = append(out, c.String())
	}
	return out
}
