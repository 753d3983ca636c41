package localcluster

import (
	"net"
	"os"
	"path/filepath"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// These specs start no cluster: they check what create does with --charts
// before anything runs.
var _ = Describe("the charts a cluster serves", func() {
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples", "charts"))
	if err != nil {
		panic(err)
	}

	It("takes directories of charts, made absolute, and refuses one that holds none, naming it", func() {
		Expect(OperatorCharts([]string{"../../examples/charts"})).To(Equal([]string{examples}))
		empty := GinkgoT().TempDir()
		_, err := OperatorCharts([]string{empty})
		Expect(err).To(MatchError("--charts " + empty + ": " + empty +
			" holds no chart: neither it nor a directory directly under it has a Chart.yaml"))
		file := filepath.Join(empty, "file")
		Expect(os.WriteFile(file, nil, 0o644)).To(Succeed())
		_, err = OperatorCharts([]string{file})
		Expect(err).To(MatchError("--charts " + file + ": " + file + " is not a directory"))
	})

	It("has a URL on 127.0.0.1 only when there are charts, and passes them to the operator's process", func() {
		Expect((*Operator)(nil).ChartsURL()).To(BeEmpty())
		Expect((&Operator{ChartsPort: 8879}).ChartsURL()).To(BeEmpty())
		op := &Operator{Charts: []string{examples, "/other"}, ChartsPort: 8879}
		Expect(op.ChartsURL()).To(Equal("http://127.0.0.1:8879"))
		c := &Cluster{Name: "test", Dir: "/state/test"}
		Expect(c.operatorArgs(&State{Operator: op})).To(Equal([]string{"cluster", "operator", "--kubeconfig", "/state/test/operator.kubeconfig",
			"--definitions=true", "--charts", examples, "--charts", "/other", "--charts-port", "8879"}))
		Expect(c.operatorArgs(&State{Operator: &Operator{Sources: []string{"web=/web"}}})).NotTo(ContainElement("--charts-port"))
	})

	It("refuses a port another program listens on, naming it and --charts-port, before anything starts", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		defer l.Close()
		port := l.Addr().(*net.TCPAddr).Port
		err = checkCharts(&State{Operator: &Operator{Charts: []string{examples}, ChartsPort: port}})
		Expect(err).To(MatchError(ContainSubstring("port " + strconv.Itoa(port) + " on 127.0.0.1, where this cluster serves its charts, " +
			"is taken by another program: stop it, or give another port with --charts-port")))
	})

	It("refuses a chart that does not load, naming it, before anything starts", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte("apiVersion: v2\nname: broken\n"), 0o644)).To(Succeed())
		err := checkCharts(&State{Operator: &Operator{Charts: []string{dir}, ChartsPort: freePort()}})
		Expect(err).To(MatchError(ContainSubstring("chart " + dir + ": ")))
		Expect(checkCharts(&State{})).To(Succeed(), "no operator, no charts")
		Expect(checkCharts(&State{Operator: &Operator{}})).To(Succeed())
	})
})

func freePort() int {
	GinkgoHelper()
	ports, err := freePorts(1)
	Expect(err).NotTo(HaveOccurred())
	return ports[0]
}
