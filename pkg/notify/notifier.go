package notify

import (
	"context"
	"errors"
)

// Sink takes events to send. Send never blocks: a sink that cannot take
// an event now drops it and counts it. A reconciler calls it.
type Sink interface {
	Send(Event)
}

// Notifier sends one event to one receiver (a webhook, a chat, a commit
// status) and says whether it arrived. An error wrapped by Permanent is
// not retried.
type Notifier interface {
	Notify(ctx context.Context, e Event) error
}

// NotifierFunc is a function as a Notifier.
type NotifierFunc func(ctx context.Context, e Event) error

// Notify calls f.
func (f NotifierFunc) Notify(ctx context.Context, e Event) error { return f(ctx, e) }

// Target is one receiver of an event.
type Target struct {
	// Key names the receiver (for a Provider, namespace/name): the
	// deduplication, the rate limit and the order of deliveries are per
	// key, and one event goes to one key once, however many routes lead
	// there.
	Key string
	// Notifier sends to it.
	Notifier Notifier
}

// Router says which receivers an event goes to: the reference operator's
// Alerts, or a fixed list (To).
type Router interface {
	Route(ctx context.Context, e Event) ([]Target, error)
}

// RouterFunc is a function as a Router.
type RouterFunc func(ctx context.Context, e Event) ([]Target, error)

// Route calls f.
func (f RouterFunc) Route(ctx context.Context, e Event) ([]Target, error) { return f(ctx, e) }

// To routes every event to the notifier n, under key.
func To(key string, n Notifier) Router {
	targets := []Target{{Key: key, Notifier: n}}
	return RouterFunc(func(context.Context, Event) ([]Target, error) { return targets, nil })
}

// permanentError is an error that a retry does not mend.
type permanentError struct{ err error }

func (p *permanentError) Error() string { return p.err.Error() }
func (p *permanentError) Unwrap() error { return p.err }

// Permanent marks err as one that a retry does not mend (a receiver that
// refuses the request, a missing credential): the dispatcher drops the
// delivery at once.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// IsPermanent tells whether err, or an error it wraps, was marked Permanent.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// skippedError says that a receiver has nothing to do with an event: a
// commit status for an event without a Git commit, a status that already
// says the same.
type skippedError struct{ reason string }

func (s *skippedError) Error() string { return "skipped: " + s.reason }

// Skipping is a Notifier's answer for an event it has nothing to do with:
// not a failure, not a delivery. The dispatcher counts it in
// wavekit_alerts_suppressed_total under reason, which is a short
// snake_case word (not_applicable, unchanged).
func Skipping(reason string) error { return &skippedError{reason: reason} }

// SkipReason returns the reason of an error made by Skipping.
func SkipReason(err error) (string, bool) {
	var s *skippedError
	if errors.As(err, &s) {
		return s.reason, true
	}
	return "", false
}
