package component

import (
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/wavekit-dev/wavekit/pkg/apirequest"
)

// Metrics on controller-runtime's registry.
var (
	componentsByState = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "wavekit_components", Help: "Components by operator and state.",
	}, []string{"operator", "state"})
	dependentsByPhase = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "wavekit_dependents", Help: "Applied objects by operator and phase.",
	}, []string{"operator", "phase"})
	reconcileDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "wavekit_reconcile_duration_seconds", Help: "Duration of component reconciles.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 14),
	}, []string{"operator"})
	reconcilesStarted = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "wavekit_reconciles_started_total", Help: "Component reconciles started, by operator; minus the finished ones, those running.",
	}, []string{"operator"})
	reconcilesFinished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "wavekit_reconciles_total", Help: "Component reconciles finished, by operator and result: the Ready condition's reason, Deleted, Gone or Skipped.",
	}, []string{"operator", "result"})
	apiRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "wavekit_api_requests_total", Help: "Requests to target API servers by verb.",
	}, []string{"verb"})
	awaitingServer = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "wavekit_components_awaiting_api_server",
		Help: "Components whose last pass failed because an API server (the operator's own, or their target's) did not answer: they are queued as soon as it answers again, and their retry backoff does not grow meanwhile.",
	}, []string{"operator"})
	objectWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "wavekit_component_object_writes_total",
		Help: "Writes of objects (creates, updates, replacements, deletions) by operator and component; one that keeps rising while nothing changes is a write loop.",
	}, []string{"operator", "namespace", "name"})
)

func init() {
	metrics.Registry.MustRegister(componentsByState, dependentsByPhase, reconcileDuration, reconcilesStarted, reconcilesFinished, apiRequests, objectWrites, awaitingServer)
}

// Results of reconciles that wrote no Ready condition.
const (
	resultDeleted = "Deleted" // the finalizer was removed
	resultGone    = "Gone"    // the component no longer exists
	resultSkipped = "Skipped" // the reconciler's filter leaves the component out
	resultFailed  = "ReadFailed"
	// resultInterrupted: the process's stop cut the pass short.
	resultInterrupted = "Interrupted"
)

// CountRequests returns a copy of cfg whose requests are counted by verb in
// wavekit_api_requests_total. The reconciler counts its own; an operator
// counts with it the reads it makes for a render (values, credentials).
func CountRequests(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			apiRequests.WithLabelValues(apirequest.Verb(req)).Inc()
			return rt.RoundTrip(req)
		})
	})
	return out
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// stateGauge keeps each component's state and inventory phases and the
// totals the gauges show. An observation changes the totals by that
// component's difference, so a reconcile costs the same with 10 or 10,000
// components; a total that drops to 0 leaves its gauge.
type stateGauge struct {
	mu       sync.Mutex
	operator string
	states   map[string]State
	phases   map[string]map[string]int
	byState  map[string]int
	byPhase  map[string]int
}

func newStateGauge(operator string) *stateGauge {
	return &stateGauge{operator: operator, states: map[string]State{}, phases: map[string]map[string]int{},
		byState: map[string]int{}, byPhase: map[string]int{}}
}

// observe records a component's state and inventory phases (nil status: gone).
func (g *stateGauge) observe(id string, status *Status) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if old, ok := g.states[id]; ok {
		g.add(componentsByState, g.byState, string(old), -1)
	}
	for phase, n := range g.phases[id] {
		g.add(dependentsByPhase, g.byPhase, phase, -n)
	}
	if status == nil {
		delete(g.states, id)
		delete(g.phases, id)
		return
	}
	g.states[id] = status.State
	g.add(componentsByState, g.byState, string(status.State), 1)
	phases := map[string]int{}
	for _, item := range status.Inventory {
		phases[string(item.Phase)]++
	}
	g.phases[id] = phases
	for phase, n := range phases {
		g.add(dependentsByPhase, g.byPhase, phase, n)
	}
}

// add changes the total of one label value by delta and sets its gauge.
func (g *stateGauge) add(vec *prometheus.GaugeVec, totals map[string]int, value string, delta int) {
	totals[value] += delta
	if totals[value] == 0 {
		delete(totals, value)
		vec.DeleteLabelValues(g.operator, value)
		return
	}
	vec.WithLabelValues(g.operator, value).Set(float64(totals[value]))
}
