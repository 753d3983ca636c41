package history

import (
	"sync"
	"time"
)

// History is what the recorders of a test saw, in the order they saw it.
// It is safe for concurrent use.
type History struct {
	mu     sync.Mutex
	events []Event
	gaps   []Gap
	notes  []Note
}

// Note is something the test itself did or saw at a time: an operation, a
// fault, a quiet point; the trace a violation is reported with.
type Note struct {
	At   time.Time
	Text string
}

func (h *History) add(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, e)
}

func (h *History) gap(g Gap) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gaps = append(h.gaps, g)
}

// Note records what the test did or saw now.
func (h *History) Note(text string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.notes = append(h.notes, Note{At: time.Now(), Text: text})
}

// Events returns the events recorded so far, in the order they were seen.
func (h *History) Events() []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Event(nil), h.events...)
}

// Gaps returns the gaps recorded so far.
func (h *History) Gaps() []Gap {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Gap(nil), h.gaps...)
}

// Notes returns the notes so far.
func (h *History) Notes() []Note {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Note(nil), h.notes...)
}

// Len is the number of events recorded so far.
func (h *History) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.events)
}
