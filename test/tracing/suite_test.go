// Package tracing_test follows installs of the reference operator through
// their OpenTelemetry traces. The operator runs as its binary with the
// chart's RBAC on a whole cluster (testcluster.Options.Controllers: the Job
// controller and kwok run the hook Job), with --otlp-endpoint set to an
// in-process receiver (receiver_test.go) that decodes the exporter's
// ExportTraceServiceRequest protobufs, as a user points it at a collector.
// The operator's log lines are kept too, to find the trace IDs in them.
package tracing_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/format"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
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
	env      *testcluster.Env
	scheme   = runtime.NewScheme()
	received *receiver
	logs     = &logLines{}
)

var _ = BeforeSuite(func() {
	log.SetLogger(GinkgoLogr)
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	var err error
	env, err = testcluster.Start(testcluster.Options{Scheme: scheme, Controllers: true})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })

	received = &receiver{}
	srv := httptest.NewServer(received)
	DeferCleanup(srv.Close)
	startOperator(context.Background(), srv.URL)
})

// The operator's namespace and ServiceAccount, as the chart names them for
// the release "wavekit".
const (
	systemNS   = "wavekit-system"
	operatorSA = "wavekit-component-operator"
)

// startOperator runs the operator binary as the chart's ServiceAccount (the
// waves chart's kinds granted through rbac.extraRules), sending its spans to
// collector with --otlp-endpoint, as a user sets it; its log lines go to
// logs. The batch processor exports every 100 ms (OTEL_BSP_SCHEDULE_DELAY)
// instead of every 5 s, so that the specs wait less.
func startOperator(ctx context.Context, collector string) {
	GinkgoHelper()
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: systemNS}})).To(Succeed())
	verbs := []any{"get", "list", "watch", "create", "update", "patch", "delete"}
	Expect(operatortest.ApplyRBAC(ctx, env.Client, testcluster.ModuleRoot(), "wavekit", systemNS, map[string]any{
		"rbac": map[string]any{"extraRules": []any{
			map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps", "secrets", "services"}, "verbs": verbs},
			map[string]any{"apiGroups": []any{"batch"}, "resources": []any{"jobs"}, "verbs": verbs},
		}},
	})).To(Succeed())
	binary, err := operatortest.BuildOperator(testcluster.ModuleRoot(), GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	cfg, err := operatortest.ServiceAccountConfig(ctx, env.Client, env.Config, systemNS, operatorSA)
	Expect(err).NotTo(HaveOccurred())
	session, err := operatortest.Operator{Binary: binary, Config: cfg, Dir: GinkgoT().TempDir(), Out: logs,
		Env: []string{"OTEL_BSP_SCHEDULE_DELAY=100", "OTEL_SERVICE_NAME=tracing-test"},
		Args: []string{"--operator-name", operatorName, "--otlp-endpoint", collector,
			"--source", "waves=" + filepath.Join(testcluster.ModuleRoot(), "test", "tracing", "testdata", "waves")}}.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Terminate().Wait(10 * time.Second) })
}

// logLines keeps the operator's log lines (JSON), and shows them in the
// spec's output. It is the operator's standard output and error.
type logLines struct {
	mu      sync.Mutex
	lines   []string
	partial []byte
}

// Write splits what the operator writes into lines.
func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	data := append(l.partial, p...)
	var complete []string
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		complete = append(complete, string(data[:i]))
		data = data[i+1:]
	}
	l.partial = append([]byte(nil), data...)
	l.mu.Unlock()
	for _, line := range complete {
		l.add(line)
	}
	return len(p), nil
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
