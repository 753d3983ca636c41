// Package notify tells people what a component operator did: a component
// Ready after a change, failed, stalled, rolled back, its deletion blocked,
// drift corrected or reported, a wave held too long; a ComponentSet's wave
// done or held, a cluster that does not answer. It is the framework's sink
// of alerts, in the shape of Flux's notification-controller (events
// routed to providers) and Argo CD Notifications (triggers), inside the
// operator's own process.
//
// # Events
//
// An Event says what happened (Kind, and its Severity: info or error), to
// which object, with the reason and message of the object's Ready
// condition, the generation, the source revision and the ID of the trace
// of the reconcile that saw it. It holds names and messages, never an
// object's data: the messages are those of the status, which never holds
// a Secret's value.
//
// # Sending
//
// A Sink takes events; its Send never blocks. pkg/component sends to the
// Sink of ReconcilerOptions.Notifier when a reconcile changes what the
// status says (nil: nothing is built and nothing is sent).
//
// # Dispatching
//
// A Dispatcher is a Sink. Send puts the event in a bounded queue, or drops
// it and counts it when the queue is full. Its Start loop asks a Router
// which receivers (Targets) the event goes to, and hands it to each
// receiver's own bounded queue, whose goroutine delivers in order with the
// receiver's Notifier: a failed try is tried again after a backoff
// (doubling), up to Options.Attempts, then dropped and counted; an error
// marked Permanent is not tried again. A receiver that is slow or down holds
// up only its own queue.
//
// # Deduplication and rate limits
//
// Each receiver gets an event of one key (Event.Key: the object, what
// happened, reason, message, generation and revision, as Flux keys its
// rate limit) once per Options.DedupWindow, so that a retrying reconcile
// does not flood a channel; and at most Options.Burst events at once, then
// one per Options.Refill, so that a flood of distinct failures gives a
// bounded number of messages. Both are counted
// (wavekit_alerts_suppressed_total).
//
// # Metrics
//
// wavekit_alerts_sent_total, wavekit_alerts_dropped_total{reason},
// wavekit_alerts_suppressed_total{reason}, wavekit_alert_retries_total and
// wavekit_alert_delivery_seconds (from what happened to the receiver's
// answer), on controller-runtime's registry, by operator.
//
// # Notifiers
//
// pkg/notify/notifiers holds the HTTP ones: a generic JSON webhook with an
// optional HMAC-SHA256 signature, Slack and Microsoft Teams incoming
// webhooks, CloudEvents over HTTP and GitHub commit statuses.
package notify
