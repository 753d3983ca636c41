package expiry

import (
	"sync"
	"time"
)

// Map is a map whose entries last ttl after they were put: Get no
// longer returns an older one, and Put drops the older ones, at most once
// per ttl, so that what a long-running operator remembers of objects it
// never looks at again is bounded. A map nobody puts to does not grow, so
// it need not be swept. It is safe for concurrent use.
type Map[K comparable, V any] struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[K]stamped[V]
	swept   time.Time // when entries older than ttl were last dropped
}

// stamped is a value and when it was put.
type stamped[V any] struct {
	value V
	at    time.Time
}

func New[K comparable, V any](ttl time.Duration, now func() time.Time) *Map[K, V] {
	return &Map[K, V]{ttl: ttl, now: now, entries: map[K]stamped[V]{}, swept: now()}
}

// Put sets the value of key, as of now.
func (e *Map[K, V]) Put(key K, value V) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	e.entries[key] = stamped[V]{value: value, at: now}
	if now.Sub(e.swept) < e.ttl {
		return
	}
	e.swept = now
	for k, s := range e.entries {
		if now.Sub(s.at) > e.ttl {
			delete(e.entries, k)
		}
	}
}

// Get returns the value of key, unless none was put within ttl.
func (e *Map[K, V]) Get(key K) (V, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.entries[key]
	if !ok || e.now().Sub(s.at) > e.ttl {
		var none V
		return none, false
	}
	return s.value, true
}

// Delete drops the value of key.
func (e *Map[K, V]) Delete(key K) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.entries, key)
}

// DeleteIf drops the value of key if served says it has served its
// purpose.
func (e *Map[K, V]) DeleteIf(key K, served func(V) bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s, ok := e.entries[key]; ok && served(s.value) {
		delete(e.entries, key)
	}
}

// Len is how many values the map holds, expired ones not yet dropped
// included.
func (e *Map[K, V]) Len() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.entries)
}
