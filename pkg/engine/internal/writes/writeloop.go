package writes

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Defaults of the write-loop guard (the applier's Options.WriteLoop).
const (
	DefaultWrites  = 5
	DefaultWindow  = time.Minute
	DefaultBackoff = 30 * time.Second
	// maxWriteLoopBackoff bounds the pause after loops that come back.
	maxWriteLoopBackoff = 10 * time.Minute
)

// LoopOptions tune the guard that stops a write loop: an object written
// again and again at one render because something changes it back after
// every write (a second controller that fights over a field without an
// ignore rule, a field the API server does not store as rendered).
type LoopOptions struct {
	// Writes is how many corrections of one object at one render are made
	// within Window; the next one is refused (default DefaultWrites).
	Writes int
	// Window is the time those writes are counted in (default DefaultWindow).
	Window time.Duration
	// Backoff is the first pause of the object's writes; it doubles each
	// time the loop comes back at the same render, up to 10 minutes
	// (default DefaultBackoff).
	Backoff time.Duration
}

func (o LoopOptions) withDefaults() LoopOptions {
	if o.Writes <= 0 {
		o.Writes = DefaultWrites
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	return o
}

// LoopError says that an object was corrected too often at one render
// and is left alone until RetryAt: whatever changes it after each write
// wins until then.
type LoopError struct {
	Object manifests.ObjectKey
	// Writes were made within Window, each undone again.
	Writes int
	Window time.Duration
	// Paths are the fields that differed at the last correction (JSON
	// pointers); none when the object was deleted after each write.
	Paths   []string
	RetryAt time.Time
}

func (e *LoopError) Error() string {
	what := "it was deleted again after each write"
	if len(e.Paths) > 0 {
		what = "these fields differed again after each write: " + strings.Join(e.Paths, ", ")
	}
	return fmt.Sprintf("write loop: written %d times within %s at one render and %s; another writer (or the API server) changes them back: "+
		"wavekit stopped writing it until %s; give the fields another writer owns an ignore rule, or render them as the API server stores them",
		e.Writes, e.Window, what, e.RetryAt.UTC().Format(time.RFC3339))
}

// Loops counts, per object, the corrections made at one render (writes
// that drift or a deletion by others made necessary) and pauses an object's
// corrections once they come too often.
type Loops struct {
	opts LoopOptions
	now  func() time.Time

	mu      sync.Mutex
	objects map[manifests.ObjectKey]*corrections
}

// corrections are the recent corrections of one object at the render digest.
type corrections struct {
	digest  string
	times   []time.Time
	paths   []string
	until   time.Time // no correction before this time
	backoff time.Duration
}

func NewLoops(opts LoopOptions, now func() time.Time) *Loops {
	return &Loops{opts: opts.withDefaults(), now: now, objects: map[manifests.ObjectKey]*corrections{}}
}

// Admit tells whether the object of key may be corrected now at digest;
// paths are the fields that differ (none for a re-create). It returns a
// *WriteLoopError while the object's corrections are paused, and pauses
// them when the object was corrected opts.Writes times within opts.Window.
func (w *Loops) Admit(key manifests.ObjectKey, digest string, paths []string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.at(key, digest)
	now := w.now()
	if now.Before(c.until) {
		return w.loopError(key, c)
	}
	c.times = recent(c.times, now.Add(-w.opts.Window))
	if len(c.times) < w.opts.Writes {
		return nil
	}
	c.backoff = min(max(2*c.backoff, w.opts.Backoff), maxWriteLoopBackoff)
	c.until = now.Add(c.backoff)
	c.paths = paths
	err := w.loopError(key, c)
	c.times = nil
	return err
}

// Corrected records a correction of the object of key at digest.
func (w *Loops) Corrected(key manifests.ObjectKey, digest string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.at(key, digest)
	c.times = append(c.times, w.now())
}

// at returns the corrections of the object of key at digest, starting
// anew when the render changed. The caller holds w.mu.
func (w *Loops) at(key manifests.ObjectKey, digest string) *corrections {
	c := w.objects[key]
	if c == nil || c.digest != digest {
		c = &corrections{digest: digest}
		w.objects[key] = c
	}
	return c
}

func (w *Loops) loopError(key manifests.ObjectKey, c *corrections) *LoopError {
	return &LoopError{Object: key, Writes: w.opts.Writes, Window: w.opts.Window, Paths: c.paths, RetryAt: c.until}
}

func (w *Loops) Forget(key manifests.ObjectKey) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.objects, key)
}

// recent drops the times before since.
func recent(times []time.Time, since time.Time) []time.Time {
	i := 0
	for i < len(times) && times[i].Before(since) {
		i++
	}
	return times[i:]
}
