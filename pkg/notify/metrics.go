package notify

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Metrics on controller-runtime's registry, by operator (Options.Name).
var (
	alertsSent = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "wavekit_alerts_sent_total", Help: "Alerts a receiver accepted, by operator.",
	}, []string{"operator"})
	alertsDropped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "wavekit_alerts_dropped_total",
		Help: "Alerts not sent, by operator and reason: queue_full, too_many_receivers, retries_exhausted, rejected, route_failed.",
	}, []string{"operator", "reason"})
	alertsSuppressed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "wavekit_alerts_suppressed_total",
		Help: "Alerts held back on purpose, by operator and reason: duplicate (same object, reason and message within the window), rate_limited (the receiver's bucket was empty), or what the receiver skipped (not_applicable: a commit status without a Git commit; unchanged: the status says so already).",
	}, []string{"operator", "reason"})
	alertRetries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "wavekit_alert_retries_total", Help: "Tries of an alert after a failed one, by operator.",
	}, []string{"operator"})
	alertLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "wavekit_alert_delivery_seconds", Help: "Time from what happened to the receiver's answer, by operator.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 18),
	}, []string{"operator"})
)

func init() {
	metrics.Registry.MustRegister(alertsSent, alertsDropped, alertsSuppressed, alertRetries, alertLatency)
}
