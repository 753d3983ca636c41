package egress_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/testenv/egress"
)

// staticOwners names the owners of a fixed set of addresses.
type staticOwners map[string]egress.Owner

func (s staticOwners) Owner(host string) (egress.Owner, bool) {
	o, ok := s[host]
	return o, ok
}

var owners = staticOwners{
	"198.18.117.139": {Kind: egress.KindService, Namespace: "keda", Name: "keda-admission-webhooks"},
	"198.19.0.7":     {Kind: egress.KindPod, Namespace: "keda", Name: "keda-operator-7f9c"},
	"kwok-node-0":    {Kind: egress.KindNode, Name: "kwok-node-0"},
	"fd00::7":        {Kind: egress.KindPod, Namespace: "web", Name: "web-0"},
}

var _ = Describe("Decide", func() {
	DescribeTable("passes loopback targets straight through",
		func(target string) {
			pass, reason := egress.Decide(target, owners)
			Expect(pass).To(BeTrue())
			Expect(reason).To(BeEmpty())
		},
		Entry("127.0.0.1, a webhook server of the test process", "127.0.0.1:9443"),
		Entry("anywhere in 127.0.0.0/8, the simulated cloud's load balancer addresses", "127.0.3.4:80"),
		Entry("::1", "[::1]:6443"),
		Entry("an IPv4-mapped 127.x", "[::ffff:127.0.0.1]:443"),
		Entry("the name localhost", "localhost:8443"),
		Entry("LOCALHOST. as a fully qualified name", "LOCALHOST.:8443"),
	)

	DescribeTable("refuses every other target with what owns the address",
		func(target, reason string) {
			pass, got := egress.Decide(target, owners)
			Expect(pass).To(BeFalse())
			Expect(got).To(Equal(reason))
		},
		Entry("a Service's cluster IP: a webhook or an APIService", "198.18.117.139:443",
			"no container serves Service keda/keda-admission-webhooks in the local cluster"),
		Entry("a pod IP: endpoint routing", "198.19.0.7:8443",
			"no container runs for pod keda/keda-operator-7f9c in the local cluster"),
		Entry("a pod's IPv6 address, written another way", "[fd00:0::7]:8443",
			"no container runs for pod web/web-0 in the local cluster"),
		Entry("a Node's host name: the kubelet, for logs, exec and port-forward", "kwok-node-0:10250",
			"no kubelet runs on Node kwok-node-0 in the local cluster: kwok simulates it"),
		Entry("an address nothing in the cluster owns", "10.96.0.12:443",
			"the local cluster sends nothing off the machine: 10.96.0.12 is no Service, pod or Node of it"),
		Entry("a name other than localhost, never resolved", "example.com:443",
			"the local cluster sends nothing off the machine: example.com is no Service, pod or Node of it"),
		Entry("0.0.0.0", "0.0.0.0:443",
			"the local cluster sends nothing off the machine: 0.0.0.0 is no Service, pod or Node of it"),
		Entry("a name that only starts with localhost", "localhost.example.com:443",
			"the local cluster sends nothing off the machine: localhost.example.com is no Service, pod or Node of it"),
		Entry("no port", "198.18.117.139",
			`the local cluster's egress gate takes host:port, not "198.18.117.139"`),
	)

	It("names no owner without Owners", func() {
		pass, reason := egress.Decide("198.18.117.139:443", nil)
		Expect(pass).To(BeFalse())
		Expect(reason).To(Equal("the local cluster sends nothing off the machine: 198.18.117.139 is no Service, pod or Node of it"))
	})
})
