package localclusters_test

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

// cluster create refuses what it cannot serve before it starts anything;
// test/e2e runs the clusters themselves.
var _ = Describe("cluster create --charts, --definitions", func() {
	var state string

	BeforeEach(func() {
		state = GinkgoT().TempDir()
		GinkgoT().Setenv("XDG_STATE_HOME", state)
	})

	DescribeTable("refuses a bad flag with one clear line, and makes no cluster",
		func(args []string, line string) {
			kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig") // where a cluster would be added
			r := clitest.WavekitWith(kubeconfig, append([]string{"cluster", "create", "--name", "charts"}, args...)...)
			Expect(r.Code).To(Equal(1))
			Expect(r.Stderr).To(Equal("error: " + line + "\n"))
			Expect(filepath.Join(state, "wavekit", "clusters", "charts")).NotTo(BeADirectory())
			Expect(kubeconfig).NotTo(BeAnExistingFile())
		},
		Entry("a port and no charts", []string{"--charts-port", "9000"},
			"--charts-port: give --charts DIR too, the charts to serve on that port"),
		Entry("a directory that holds no chart", []string{"--charts", "../testdata/web"},
			"--charts ../testdata/web: "+must(filepath.Abs("../testdata/web"))+
				" holds no chart: neither it nor a directory directly under it has a Chart.yaml"),
		Entry("a port out of range", []string{"--charts", "../../../examples/charts", "--charts-port", "70000"},
			"--charts-port 70000: give a port from 1 to 65535"),
		Entry("groups of definitions it does not serve", []string{"--operator", "--definitions=false", "--definition-groups", "platform.example.com"},
			"--definition-groups: the operator serves no definitions with --definitions=false; give one of the two"),
	)
})

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// What create runs in the background refuses to start without what create
// gives it; test/e2e runs it in its clusters.
var _ = Describe("cluster egress-gate", func() {
	It("needs the kubeconfig and the socket that create gives it", func() {
		r := clitest.WavekitAlone("cluster", "egress-gate", "--socket", filepath.Join(GinkgoT().TempDir(), "egress.sock"))
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal("error: egress-gate needs --kubeconfig and --socket\n"))
	})
})
