// Package tracing_test follows installs of the reference operator through
// their OpenTelemetry traces. The operator runs in this process on a whole
// cluster (testenv.Options.Controllers: the Job controller and kwok run the
// hook Job), with a TracerProvider that pkg/tracing builds for an OTLP/HTTP
// endpoint: an in-process receiver (receiver_test.go) that decodes the
// exporter's ExportTraceServiceRequest protobufs. The operator's log lines
// are kept too, to find the trace IDs in them.
package tracing_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/format"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/componenttest"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/testenv"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/tracing"
)

func TestTracing(t *testing.T) {
	RegisterFailHandler(Fail)
	format.TruncatedDiff = false
	RunSpecs(t, "tracing")
}

// operatorName is the name of the operator this suite runs: the prefix of
// the chart's apply-order annotations.
const operatorName = "tracing.wavekit.dev"

var (
	env      *testenv.Env
	scheme   = runtime.NewScheme()
	received *receiver
	logs     = &logLines{}
	// flush exports the spans ended so far.
	flush func(context.Context) error
)

var _ = BeforeSuite(func() {
	log.SetLogger(GinkgoLogr)
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	var err error
	env, err = testenv.Start(testenv.Options{Scheme: scheme, Controllers: true})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })

	received = &receiver{}
	srv := httptest.NewServer(received)
	DeferCleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	DeferCleanup(cancel)
	tp, shutdown, err := tracing.New(ctx, tracing.Config{Endpoint: srv.URL, ServiceName: "tracing-test"})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(shutdown)
	flusher, ok := tp.(interface{ ForceFlush(context.Context) error })
	Expect(ok).To(BeTrue(), "an endpoint turns tracing on: the SDK's provider")
	flush = flusher.ForceFlush

	opts := componenttest.ManagerOptions(scheme)
	opts.Logger = funcr.NewJSON(logs.add, funcr.Options{})
	mgr, err := ctrl.NewManager(env.Config, opts)
	Expect(err).NotTo(HaveOccurred())
	_, err = operator.Setup(mgr, operator.Options{Name: operatorName,
		Sources:    map[string]string{"waves": filepath.Join(testenv.ModuleRoot(), "test", "tracing", "testdata", "waves")},
		Reconciler: component.ReconcilerOptions{TracerProvider: tp}})
	Expect(err).NotTo(HaveOccurred())
	componenttest.RunManager(ctx, mgr)
})

// logLines keeps the operator's log lines (JSON), and shows them in the
// spec's output.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(line string) {
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
	GinkgoWriter.Println(line)
}

// containing returns the lines that contain every one of parts.
func (l *logLines) containing(parts ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			out = append(out, line)
		}
	}
	return out
}

// newNamespace creates a namespace for one spec.
func newNamespace(ctx context.Context, name string) string {
	GinkgoHelper()
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
	return name
}

func eventually(f any) AsyncAssertion {
	return Eventually(f).WithTimeout(60 * time.Second).WithPolling(100 * time.Millisecond)
}
