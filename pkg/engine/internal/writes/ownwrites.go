package writes

import (
	"sync"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Own tells the watch events that the applier's own writes cause from
// the changes others make. It remembers the resourceVersion of its last write
// of each object, and holds the events of an object that come while a write
// of it is under way: the API server may send the event of a write before its
// answer, when the version is not known yet.
type Own struct {
	mu       sync.Mutex
	versions map[manifests.ObjectKey]string
	writing  map[manifests.ObjectKey]*writeUnderWay
}

// writeUnderWay counts the writes of one object in flight and holds the
// events seen meanwhile.
type writeUnderWay struct {
	writes int
	held   []heldEvent
}

// heldEvent is a watch event held until the write under way returns: react
// runs then, unless the event was that write.
type heldEvent struct {
	resourceVersion string
	react           func()
}

func NewOwn() *Own {
	return &Own{versions: map[manifests.ObjectKey]string{}, writing: map[manifests.ObjectKey]*writeUnderWay{}}
}

// Begin records that a write of key is about to be sent.
func (o *Own) Begin(key manifests.ObjectKey) {
	o.mu.Lock()
	defer o.mu.Unlock()
	w := o.writing[key]
	if w == nil {
		w = &writeUnderWay{}
		o.writing[key] = w
	}
	w.writes++
}

// End records that a write of key returned, at resourceVersion if it
// succeeded ("" if not). It reports whether a held event was that write, and
// runs the reactions of the other held events once no write of key is under
// way any more.
func (o *Own) End(key manifests.ObjectKey, resourceVersion string) (seen bool) {
	seen, others := o.settle(key, resourceVersion)
	for _, e := range others {
		e.react()
	}
	return seen
}

// settle does end's bookkeeping under the lock and returns the held events
// to react to, which end runs without it.
func (o *Own) settle(key manifests.ObjectKey, resourceVersion string) (seen bool, others []heldEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if resourceVersion != "" {
		o.versions[key] = resourceVersion
	}
	w := o.writing[key]
	if w == nil {
		return false, nil
	}
	w.writes--
	for _, e := range w.held {
		if resourceVersion != "" && e.resourceVersion == resourceVersion {
			seen = true
		} else {
			others = append(others, e)
		}
	}
	if w.writes > 0 {
		w.held = others
		return seen, nil
	}
	delete(o.writing, key)
	return seen, others
}

// Claim decides about a watch event of key at resourceVersion. It returns
// own when the event is the applier's last write, held when a write of key
// is under way (react runs later, unless the event turns out to be that
// write), and neither when the event is someone else's change.
func (o *Own) Claim(key manifests.ObjectKey, resourceVersion string, react func()) (own, held bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if resourceVersion != "" && o.versions[key] == resourceVersion {
		return true, false
	}
	if w := o.writing[key]; w != nil {
		w.held = append(w.held, heldEvent{resourceVersion: resourceVersion, react: react})
		return false, true
	}
	return false, false
}

func (o *Own) Forget(key manifests.ObjectKey) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.versions, key)
}
