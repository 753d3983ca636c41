package component_test

import (
	"context"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/pgserver"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/external/postgres"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// externalPollInterval is the poll interval of the benchmark's dependents.
const externalPollInterval = 10 * time.Second

// BenchmarkExternalPolls installs 100 Components with one PostgreSQL
// database each in a real PostgreSQL server, then leaves them idle for
// BENCH_EXTERNAL_IDLE (default 5m), and reports the polls per minute
// (configured: one per dependent every 10 s, ± 10 % jitter), the
// Kubernetes requests of the idle window (polls that find nothing changed
// make none) and the CPU time of this process (operator and benchmark)
// per poll.
func BenchmarkExternalPolls(b *testing.B) {
	idle := 5 * time.Minute
	if v := os.Getenv("BENCH_EXTERNAL_IDLE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("BENCH_EXTERNAL_IDLE: %v", err)
		}
		idle = d
	}
	for i := 0; i < b.N; i++ {
		benchmarkExternalPolls(b, 100, idle)
	}
}

func benchmarkExternalPolls(b *testing.B, k int, idle time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pg, err := pgserver.Start(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Close()
	e := benchEnv.Get(b)
	ns := benchNamespace(b, ctx, e)
	admin := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "postgres-admin"}, Data: pg.AdminCredentials()}
	if err := e.Client.Create(ctx, admin); err != nil {
		b.Fatal(err)
	}
	observes := &countingProvider{Provider: postgres.DatabaseProvider()}
	opts := component.ReconcilerOptions{
		ExternalProviders: map[string]external.Provider{postgres.KindDatabase: observes},
		External:          external.Options{PollInterval: externalPollInterval},
	}
	counter := apicount.New()
	startBenchOperator(b, ctx, e, counter, ns, oneDatabase(), opts)
	for _, name := range componentNames("db", k) {
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ComponentSpec{Source: "bench"}}
		if err := e.Client.Create(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	waitAllReady(b, ctx, e.Client, ns, k)

	counter.Reset()
	polls, cpu := observes.calls.Load(), cpuTime()
	time.Sleep(idle)
	polls, cpu = observes.calls.Load()-polls, cpuTime()-cpu
	b.ReportMetric(float64(polls)/idle.Minutes(), "polls/min")
	b.ReportMetric(float64(k)*time.Minute.Seconds()/externalPollInterval.Seconds(), "configured-polls/min")
	b.ReportMetric(float64(counter.Verbs()["get"]+counter.Verbs()["list"]+counter.Writes()), "idle-k8s-requests")
	if polls > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(polls), "cpu-µs/poll")
	}
	b.Logf("idle %s: %d polls, %s CPU, requests: %s", idle, polls, cpu, counter)
}

// oneDatabase renders one PostgreSQL database named after the component,
// logged in with the Secret postgres-admin.
func oneDatabase() manifests.Generator {
	return manifests.GeneratorFunc(func(_ context.Context, _, name string, _ manifests.Parameters) ([]client.Object, error) {
		return []client.Object{external.New(external.Object{
			Kind: postgres.KindDatabase, Name: "db", Spec: map[string]any{"name": name},
			CredentialsFrom: "postgres-admin",
		})}, nil
	})
}

// countingProvider counts the Observe calls of a provider.
type countingProvider struct {
	external.Provider
	calls atomic.Int64
}

// Matches is the database provider's own comparison.
func (p *countingProvider) Matches(desired map[string]any, observed external.Observation) bool {
	return p.Provider.(external.Matcher).Matches(desired, observed)
}

func (p *countingProvider) Observe(ctx context.Context, req external.Request) (*external.Observation, error) {
	p.calls.Add(1)
	return p.Provider.Observe(ctx, req)
}

// cpuTime is the user and system CPU time of this process so far.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
