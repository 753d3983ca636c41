package reliability_test

import (
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// binaryOperator runs the component-operator binary against the test API
// server, one process at a time, and kills it with SIGKILL.
type binaryOperator struct {
	binary, kubeconfig string
	session            *gexec.Session
	kills              int
}

const crashOperator = "crash.wavekit.dev"

func newBinaryOperator() *binaryOperator {
	GinkgoHelper()
	binary, err := gexec.Build("github.com/wavekit-dev/wavekit/cmd/component-operator")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(gexec.CleanupBuildArtifacts)
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())
	o := &binaryOperator{binary: binary, kubeconfig: kubeconfig}
	DeferCleanup(o.stop)
	return o
}

// start starts the operator unless it runs; extra flags go last.
func (o *binaryOperator) start(extra ...string) {
	GinkgoHelper()
	if o.session != nil {
		return
	}
	args := append([]string{"--kubeconfig", o.kubeconfig, "--operator-name", crashOperator,
		"--source", "crash=" + testdata("crash"),
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0"}, extra...)
	session, err := gexec.Start(exec.Command(o.binary, args...), GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	o.session = session
}

// kill sends SIGKILL and waits until the process is gone.
func (o *binaryOperator) kill() {
	GinkgoHelper()
	Expect(o.session).NotTo(BeNil(), "no operator runs")
	o.session.Kill()
	Eventually(o.session).WithTimeout(10 * time.Second).Should(gexec.Exit())
	o.session = nil
	o.kills++
}

func (o *binaryOperator) stop() {
	if o.session != nil {
		o.session.Terminate().Wait(10 * time.Second)
		o.session = nil
	}
}
