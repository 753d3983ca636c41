package releases_test

import (
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The fields popular charts render and the API server stores otherwise
// (the e2e suite's chart, one class of field per value of class) are no
// drift to the CLI either: a second apply writes nothing, diff shows nothing.
var _ = Describe("fields the API server stores otherwise", func() {
	chart := filepath.Join(testcluster.ModuleRoot(), "test", "e2e", "testdata", "stored")

	BeforeEach(func() {
		clitest.
			// The Gadget kind of the customResource class; it stays for the suite.
			Succeeds("apply", "stored-crds", filepath.Join(testcluster.ModuleRoot(), "test", "e2e", "testdata", "crds"), "-n", "default", "--wait", "--timeout", "1m")
	})

	DescribeTable("a second apply writes nothing and diff shows no change",
		func(class string) {
			ns := clitest.NewNamespace()
			name := strings.ToLower(class)
			clitest.Succeeds("apply", name, chart, "-n", ns, "--set", "class="+class, "--wait", "--timeout", "2m")

			config, counter := clitest.CountingKubeconfig()
			r := clitest.WavekitWith(config, "apply", name, chart, "-n", ns, "--set", "class="+class)
			Expect(r.Code).To(Equal(0), r.Stderr)
			// A fresh process learns a stored form the API server fills in
			// (a Service's clusterIP, a pruned field) with a dry run; for a
			// field the schema does not know, the dry-run apply is refused
			// and a dry-run PUT answers, as the write would be made.
			Expect(counter.Writes()-counter.DryRuns()).To(BeZero(), "the second apply: %s", counter)
			Expect(counter.DryRuns()).To(BeNumerically("<=", 2), counter.String())
			Expect(clitest.Succeeds("diff", name, chart, "-n", ns, "--set", "class="+class)).
				To(Equal("Summary: 0 to create, 0 to update, 0 to delete, 1 unchanged\n"))
		},
		Entry(nil, "hostNetwork"), Entry(nil, "minReadySeconds"), Entry(nil, "probe"), Entry(nil, "serviceLinks"),
		Entry(nil, "emptyEnv"), Entry(nil, "quantities"), Entry(nil, "service"), Entry(nil, "customResource"),
	)
})
