package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/wavekit-dev/wavekit/internal/testing/egresstest"
)

// forgetEgressGate removes the egress gate from the record of the stopped
// cluster name, as a cluster created before there was one has it.
func (s *quickstartShell) forgetEgressGate(name string) {
	GinkgoHelper()
	path := filepath.Join(s.stateHome, "wavekit", "clusters", name, "cluster.json")
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	var record map[string]any
	Expect(json.Unmarshal(data, &record)).To(Succeed())
	Expect(record).To(HaveKey("egressGate"))
	delete(record, "egressGate")
	data, err = json.Marshal(record)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(path, data, 0o600)).To(Succeed())
}

// expectClosedBox applies the chart egress with wavekit apply to the
// running cluster name while strace watches its kube-apiserver: it
// connects to nothing off the machine, asks the cluster's egress gate, and
// the user sees the gate's reasons, in what wavekit apply says too.
func (s *quickstartShell) expectClosedBox(name string) {
	GinkgoHelper()
	state := s.state(name)
	Expect(state.ServiceCIDR).To(Equal("198.18.0.0/16"))
	pids := map[string]int{}
	for _, p := range state.Processes {
		pids[p.Name] = p.PID
	}
	Expect(pids).To(HaveKey("egress-gate"), "the cluster runs its egress gate")
	socket := filepath.Join(s.stateHome, "wavekit", "clusters", name, "egress.sock")
	expectClosed := egresstest.TraceAPIServer(pids["kube-apiserver"], socket)

	kubeContext := "--context wavekit-" + name
	s.run("wavekit apply egress " + egresstest.ChartDir() + " -n egress --create-namespace " + kubeContext)
	egresstest.ExpectRefusals(context.Background(), s.restConfig(name), "egress")
	// What wavekit says when it is run again: why the wave waits.
	Expect(s.run("wavekit apply egress " + egresstest.ChartDir() + " -n egress " + kubeContext + " 2>&1")).
		To(ContainSubstring(egresstest.APIServiceRefusal("egress")))
	expectClosed()
}

// expectGate checks that the cluster name, started again, runs its egress
// gate, which refuses the Fail webhook of the chart egress that
// expectClosedBox installed with its reason.
func (s *quickstartShell) expectGate(name string) {
	GinkgoHelper()
	Expect(s.state(name).Processes).To(ContainElement(HaveField("Name", "egress-gate")))
	cs, err := kubernetes.NewForConfig(s.restConfig(name))
	Expect(err).NotTo(HaveOccurred())
	egresstest.ExpectFailClosed(context.Background(), cs, "egress")
}

// restConfig is the configuration of the context of cluster name in the
// shell's kubeconfig.
func (s *quickstartShell) restConfig(name string) *rest.Config {
	GinkgoHelper()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(&clientcmd.ClientConfigLoadingRules{ExplicitPath: s.kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: "wavekit-" + name}).ClientConfig()
	Expect(err).NotTo(HaveOccurred())
	return cfg
}
