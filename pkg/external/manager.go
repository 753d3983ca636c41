package external

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Options tune a Manager. Zero values take the defaults noted.
type Options struct {
	// PollInterval is how often a dependent is observed when it sets no
	// pollInterval of its own (default DefaultPollInterval).
	PollInterval time.Duration
	// Jitter spreads the polls: each waits PollInterval × (1 ± Jitter)
	// (default 0.1).
	Jitter float64
	// MaxConcurrentPolls bounds the polls of one Manager that run at once
	// (default DefaultMaxConcurrentPolls).
	MaxConcurrentPolls int
	// AfterCreate, where set, is called right after a Provider's Create
	// returned and before its ID is recorded; an error ends the pass there.
	// Tests use it to stop an operator at that moment.
	AfterCreate func(ctx context.Context, req Request, made Observation) error
}

// Defaults of Options.
const (
	DefaultPollInterval       = time.Minute
	DefaultMaxConcurrentPolls = 8
)

// Manager manages the external dependents of every component of one
// reconciler: the providers by kind, the poller that observes what passes
// applied, and the drift already reported.
type Manager struct {
	providers map[string]Provider
	opts      Options
	poller    *Poller

	mu       sync.Mutex
	reported map[string]string // dependent → the drift last reported
}

// NewManager returns a Manager of providers (by kind); notify is called
// with the component whose dependent a poll found changed or gone.
func NewManager(providers map[string]Provider, opts Options, notify func(types.NamespacedName)) *Manager {
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.Jitter <= 0 || opts.Jitter >= 1 {
		opts.Jitter = 0.1
	}
	if opts.MaxConcurrentPolls <= 0 {
		opts.MaxConcurrentPolls = DefaultMaxConcurrentPolls
	}
	return &Manager{
		providers: providers, opts: opts, reported: map[string]string{},
		poller: newPoller(opts, notify),
	}
}

// Poller returns the manager's poller.
func (m *Manager) Poller() *Poller { return m.poller }

// Stop ends every poll.
func (m *Manager) Stop() { m.poller.stop() }

// Forget stops the polls of a component that is gone.
func (m *Manager) Forget(component types.NamespacedName) {
	m.poller.keep(component, nil)
	m.mu.Lock()
	defer m.mu.Unlock()
	for key := range m.reported {
		if strings.HasPrefix(key, component.String()+"/") {
			delete(m.reported, key)
		}
	}
}

// provider returns the provider of kind, or an error that names the kinds
// there are.
func (m *Manager) provider(kind string) (Provider, error) {
	if p, ok := m.providers[kind]; ok {
		return p, nil
	}
	kinds := m.Kinds()
	if len(kinds) == 0 {
		return nil, fmt.Errorf("no provider is registered for external kind %s: this operator manages no external dependents", kind)
	}
	return nil, fmt.Errorf("no provider is registered for external kind %s (registered: %s)", kind, strings.Join(kinds, ", "))
}

// newDrift tells whether drift of dependent (a description of it) was not
// reported yet, and remembers it; "" forgets it.
func (m *Manager) newDrift(dependent, drift string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if drift == "" {
		delete(m.reported, dependent)
		return false
	}
	if m.reported[dependent] == drift {
		return false
	}
	m.reported[dependent] = drift
	return true
}

// Kinds returns the kinds that have a provider, sorted.
func (m *Manager) Kinds() []string {
	kinds := make([]string, 0, len(m.providers))
	for k := range m.providers {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}
