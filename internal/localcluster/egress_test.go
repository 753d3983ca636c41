package localcluster

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/testenv/k8sbin"
)

// These specs start no cluster: they check what a cluster records and how
// it runs kube-apiserver and the egress gate; test/e2e's quick start runs
// them, pkg/testenv/egress checks the gate.
var _ = Describe("the address ranges and the egress gate of a cluster", func() {
	It("gives a new cluster the ranges of 198.18.0.0/15, with the Service kubernetes in the API server's certificate", func() {
		c := &Cluster{Name: "new", Dir: filepath.Join(GinkgoT().TempDir(), "new")}
		s, err := c.create(Options{Binaries: fakeBinaries(), EgressGate: &EgressGate{Executable: "/bin/wavekit"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.ServiceCIDR).To(Equal("198.18.0.0/16"))
		Expect(s.PodCIDR).To(Equal("198.19.0.0/16"))
		Expect(s.EgressGate).To(Equal(&EgressGate{Executable: "/bin/wavekit"}))
		recorded, err := c.ReadState()
		Expect(err).NotTo(HaveOccurred())
		Expect(recorded).To(Equal(s))

		Expect(c.apiServerArgs(s)).To(ContainElements("--service-cluster-ip-range=198.18.0.0/16",
			"--egress-selector-config-file="+filepath.Join(c.Dir, "egress-selector.yaml")))
		var ips []string
		for _, ip := range serverCertificate(c).IPAddresses {
			ips = append(ips, ip.String())
		}
		Expect(ips).To(ConsistOf("127.0.0.1", "198.18.0.1"))
	})

	It("keeps the ranges of a cluster created before they were recorded, and gives it the egress gate at its next start", func() {
		c := &Cluster{Name: "old", Dir: "/state/old"}
		s := &State{Nodes: 3, Cloud: &Cloud{Executable: "/bin/wavekit"}} // as such a cluster.json reads
		s.update(Options{EgressGate: &EgressGate{Executable: "/bin/wavekit"}, Cloud: &Cloud{Executable: "/bin/wavekit"}})

		Expect(s.EgressGate).To(Equal(&EgressGate{Executable: "/bin/wavekit"}))
		Expect(s.ServiceRange()).To(Equal("10.96.0.0/16"))
		Expect(s.PodRange()).To(Equal("10.244.0.0/16"))
		Expect(c.apiServerArgs(s)).To(ContainElements("--service-cluster-ip-range=10.96.0.0/16",
			"--egress-selector-config-file=/state/old/egress-selector.yaml"))
	})

	It("stops the egress gate just before kube-apiserver, which would wait for its watches, and the others last started first", func() {
		started := []ProcessRecord{{"etcd", 1}, {"egress-gate", 2}, {"kube-apiserver", 3}, {"kube-controller-manager", 4}, {"kwok", 5}, {"operator", 6}}
		Expect(names(stopOrder(started))).To(Equal([]string{"operator", "kwok", "kube-controller-manager", "egress-gate", "kube-apiserver", "etcd"}))
		recordedBefore := []ProcessRecord{{"etcd", 1}, {"kube-apiserver", 2}, {"kwok", 3}}
		Expect(names(stopOrder(recordedBefore))).To(Equal([]string{"kwok", "kube-apiserver", "etcd"}))
	})

	It("names the gate's socket relative to the logs, where kube-apiserver and the gate run, when its path is too long for a socket", func() {
		Expect((&Cluster{Dir: "/home/me/.local/state/wavekit/clusters/wavekit"}).egressSocket()).
			To(Equal("/home/me/.local/state/wavekit/clusters/wavekit/egress.sock"))
		long := &Cluster{Dir: "/home/me/.local/state/wavekit/clusters/" + strings.Repeat("a", 63)}
		Expect(long.egressSocket()).To(Equal("../egress.sock"))
		Expect(filepath.Join(long.LogDir(), long.egressSocket())).To(Equal(filepath.Join(long.Dir, "egress.sock")))
	})
})

// fakeBinaries is a directory of empty executables of every part's name.
func fakeBinaries() string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	for _, name := range k8sbin.All {
		Expect(os.WriteFile(filepath.Join(dir, name), nil, 0o755)).To(Succeed())
	}
	return dir
}

func serverCertificate(c *Cluster) *x509.Certificate {
	GinkgoHelper()
	data, err := os.ReadFile(c.path("pki", serverCertFile))
	Expect(err).NotTo(HaveOccurred())
	block, _ := pem.Decode(data)
	Expect(block).NotTo(BeNil())
	cert, err := x509.ParseCertificate(block.Bytes)
	Expect(err).NotTo(HaveOccurred())
	return cert
}

func names(processes []ProcessRecord) []string {
	var out []string
	for _, p := range processes {
		out = append(out, p.Name)
	}
	return out
}
