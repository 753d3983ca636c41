package component_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/notify"
	"github.com/wavekit-dev/wavekit/pkg/notify/notifiers"
)

// BenchmarkAlerts creates 100 components of 4 ConfigMaps each and waits
// until all are Ready, with the reconciler's Notifier off, or sending each
// Component's Ready through a dispatcher to a receiver that is dead
// (connection refused), hangs (accepts and never answers) or is live. It
// reports the time to Ready (what alerts must not slow) and, for the live
// receiver, the latency of the alerts from the status write that made the
// Component Ready to the receiver (Event.Time to arrival).
// The receivers take turns, four rounds after a warm-up (the control
// plane's first use), each round starting with the next receiver: each run
// leaves its objects in the control plane, which slows the runs after it,
// and so each receiver runs once in each place.
func BenchmarkAlerts(b *testing.B) {
	const k = 100
	b.Run("warm-up", func(b *testing.B) {
		for range b.N {
			benchmarkAlerts(b, k, "none")
		}
	})
	receivers := []string{"none", "dead", "hanging", "live"}
	for round := range len(receivers) {
		for i := range receivers {
			receiver := receivers[(round+i)%len(receivers)]
			b.Run(fmt.Sprintf("receiver=%s/round=%d", receiver, round+1), func(b *testing.B) {
				for range b.N {
					benchmarkAlerts(b, k, receiver)
				}
			})
		}
	}
}

func benchmarkAlerts(b *testing.B, k int, receiver string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := benchEnv.Get(b)
	ns := benchNamespace(b, ctx, e)
	opts := component.ReconcilerOptions{MaxConcurrentReconciles: 4}
	var live *latencyReceiver
	if receiver != "none" {
		var url string
		switch receiver {
		case "dead":
			url = "http://" + closedAddress(b) + "/hook"
		case "hanging":
			url = hangingServer(b).URL
		case "live":
			live = newLatencyReceiver(b)
			url = live.URL
		}
		d := notify.NewDispatcher(notify.To(receiver, &notifiers.Webhook{URL: url}), notify.Options{Name: "bench-" + ns, Burst: -1})
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			_ = d.Start(ctx)
		}()
		defer func() { cancel(); <-stopped }()
		opts.Notifier = d
	}
	runUntilReady(b, ctx, e, ns, configMapsInWaves(4, 1), opts, componentNames("c", k))
	if live != nil {
		live.report(b, k)
	}
}

// closedAddress is a local address nobody listens on.
func closedAddress(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	address := l.Addr().String()
	_ = l.Close()
	return address
}

// hangingServer accepts requests and never answers them.
func hangingServer(b *testing.B) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // read to the end: the server then notices a client that goes
		<-r.Context().Done()
	}))
	b.Cleanup(func() { s.CloseClientConnections(); s.Close() })
	return s
}

// latencyReceiver keeps how long each alert took from its Event.Time.
type latencyReceiver struct {
	*httptest.Server
	mu        sync.Mutex
	latencies []time.Duration
}

func newLatencyReceiver(b *testing.B) *latencyReceiver {
	r := &latencyReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		arrived := time.Now()
		var e notify.Event
		if err := json.NewDecoder(req.Body).Decode(&e); err == nil {
			r.mu.Lock()
			r.latencies = append(r.latencies, arrived.Sub(e.Time))
			r.mu.Unlock()
		}
	}))
	b.Cleanup(r.Close)
	return r
}

// report waits (a minute at most) for k alerts and reports their
// latency's median, 99th percentile and maximum.
func (r *latencyReceiver) report(b *testing.B, k int) {
	deadline := time.Now().Add(time.Minute)
	for {
		r.mu.Lock()
		got := slices.Clone(r.latencies)
		r.mu.Unlock()
		if len(got) >= k || time.Now().After(deadline) {
			if len(got) == 0 {
				b.Fatal("no alert arrived")
			}
			slices.Sort(got)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(float64(len(got)), "alerts")
			b.ReportMetric(ms(got[len(got)/2]), "p50-ms")
			b.ReportMetric(ms(got[(len(got)*99+99)/100-1]), "p99-ms")
			b.ReportMetric(ms(got[len(got)-1]), "max-ms")
			return
		}
		time.Sleep(100 * time.Millisecond) // a benchmark's poll, not a test's synchronisation
	}
}
