// Package robustness_test is wavekit's randomized soak: a seeded generator
// mixes operations on Components and a ComponentSet with faults (an operator
// replica killed, kube-apiserver restarted, etcd or kube-controller-manager
// stopped, a member API server or PostgreSQL stopped, a hook Job deleted as
// it finishes, the operator's connection cut or delayed) on the whole local
// cluster, member API servers and a real PostgreSQL, while the reference
// operator runs as its binary under its chart's RBAC, two replicas on each
// of two shards. A recorder keeps what happens (package history); at every
// quiet point and at the end a checker (package invariants, and the state
// checks of quiet.go) judges it. A violation prints the seed and the trace.
//
// The same seed gives the same operations and faults in the same order;
// when each fault strikes, relative to the operator's work, is not
// deterministic. docs/reliability.md has the table and the command.
package robustness_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/format"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/chartserve"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/pgserver"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

func TestRobustness(t *testing.T) {
	RegisterFailHandler(Fail)
	format.TruncatedDiff = false
	RunSpecs(t, "robustness")
}

// settings are the soak's knobs, from the environment (make robustness and
// make soak set them; make test leaves the defaults).
type settings struct {
	duration time.Duration // how long the soak generates steps
	seed     int64
	members  int           // member API servers
	idle     time.Duration // the idle window after each convergence
	converge time.Duration // the bound on convergence after the faults stop
}

func loadSettings() settings {
	s := settings{duration: 2 * time.Minute, seed: 1, members: 1, idle: 10 * time.Second, converge: 90 * time.Second}
	if d, err := time.ParseDuration(os.Getenv("SOAK_DURATION")); err == nil {
		s.duration = d
	}
	if seed, err := strconv.ParseInt(os.Getenv("SOAK_SEED"), 10, 64); err == nil {
		s.seed = seed
	}
	if n, err := strconv.Atoi(os.Getenv("SOAK_MEMBERS")); err == nil && n > 0 {
		s.members = n
	}
	if d, err := time.ParseDuration(os.Getenv("SOAK_IDLE")); err == nil {
		s.idle = d
	}
	if d, err := time.ParseDuration(os.Getenv("SOAK_CONVERGE")); err == nil {
		s.converge = d
	}
	return s
}

const operatorNamespace = "wavekit-system"

var (
	ctx     = context.Background()
	config  = loadSettings()
	scheme  = runtime.NewScheme()
	hub     *testcluster.Env
	members []*testcluster.Env
	pg      *pgserver.Server
	// charts is the Helm repository of the hooks chart, at versions
	// chartV1 and chartV2.
	charts *chartserve.Server
	// binary is the operator as released; planted is built with the
	// wavekit_plant tag, on first use.
	binary string
)

var _ = BeforeSuite(func() {
	log.SetLogger(GinkgoLogr)
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
	started := make(chan error, 1)
	go func() {
		var err error
		members, err = testcluster.StartClusters(config.members)
		started <- err
	}()
	var err error
	hub, err = testcluster.Start(testcluster.Options{Scheme: scheme, Controllers: true})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(hub.Stop()).To(Succeed()) })
	Expect(<-started).To(Succeed())
	DeferCleanup(func() {
		for _, m := range members {
			Expect(m.Stop()).To(Succeed())
		}
	})
	pg, err = pgserver.Start(ctx)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(pg.Close)
	Expect(logStatements()).To(Succeed())
	charts, err = chartserve.Start(0, testdata("hooks"), chartAt(testdata("hooks"), chartV2))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(charts.Close)
	binary, err = operatortest.BuildOperator(testcluster.ModuleRoot(), GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	Expect(hub.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}})).To(Succeed())
})

// testdata is the path of a source of testdata.
func testdata(name string) string {
	return filepath.Join(testcluster.ModuleRoot(), "test", "robustness", "testdata", name)
}

// chartAt copies the chart of dir, at the version it has, into a
// directory of the spec's as the same chart at version.
func chartAt(dir, version string) string {
	GinkgoHelper()
	out := filepath.Join(GinkgoT().TempDir(), filepath.Base(dir)+"-"+version)
	Expect(os.CopyFS(out, os.DirFS(dir))).To(Succeed())
	chartFile := filepath.Join(out, "Chart.yaml")
	meta, err := os.ReadFile(chartFile)
	Expect(err).NotTo(HaveOccurred())
	versioned := regexp.MustCompile(`(?m)^version: .*$`).ReplaceAll(meta, []byte("version: "+version))
	Expect(versioned).NotTo(Equal(meta), "%s names no version", chartFile)
	Expect(os.WriteFile(chartFile, versioned, 0o600)).To(Succeed())
	return out
}

// seedText says how to run this soak again.
func seedText(seed int64) string {
	return fmt.Sprintf("seed %d (replay: SOAK_SEED=%d make robustness)", seed, seed)
}
