package drift

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// maxDriftPaths bounds the field paths reported for one drifted object.
const maxDriftPaths = 20

// Drift is an object that no longer holds what was applied.
type Drift struct {
	Object manifests.ObjectKey
	// Paths are JSON pointers of the fields that differ (at most 20).
	Paths []string
	// New is true the first time this drift (these paths with these live
	// values) is reported by this applier: report it once per change.
	New bool
}

// Detector decides whether a live object still holds what the applier
// applied. It compares the rendered fields with the live ones (fields the
// server or other controllers add are ignored, and so are the fields of
// ignore rules) and remembers the last resourceVersion that matched, so an
// unchanged object costs one map lookup. It also remembers which drift it
// reported last, so that a drift is reported once per change.
type Detector struct {
	mu       sync.Mutex
	matched  map[manifests.ObjectKey]string // key → resourceVersion (and ignore rules) known to hold the desired fields
	reported map[manifests.ObjectKey]string // key → fingerprint of the drift reported last
}

func NewDetector() *Detector {
	return &Detector{matched: map[manifests.ObjectKey]string{}, reported: map[manifests.ObjectKey]string{}}
}

// Drifted returns the JSON pointers of the fields of want that live lacks
// or changed (at most maxDriftPaths), none when live holds them all, and
// then remembers the match. want is the object as the API server stores it
// (storedForms), normalised JSON. Fields at ignored paths are not compared.
func (d *Detector) Drifted(key manifests.ObjectKey, want, live map[string]any, liveVersion string, ignore []manifests.Pointer) []string {
	paths, stamp := d.Compare(key, want, live, liveVersion, ignore)
	if len(paths) > 0 || stamp == "" {
		return paths
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.matched[key] = stamp
	delete(d.reported, key)
	return nil
}

// Holds tells whether the object was found to hold the desired fields at
// liveVersion, with the same ignore rules: drifted would find nothing.
func (d *Detector) Holds(key manifests.ObjectKey, liveVersion string, ignore []manifests.Pointer) bool {
	stamp := matchStamp(liveVersion, ignore)
	d.mu.Lock()
	defer d.mu.Unlock()
	known := d.matched[key]
	return known != "" && known == stamp
}

// Compare is drifted without remembering anything: the drifted paths, and
// the stamp to remember for a match that is not known yet ("" when it is).
func (d *Detector) Compare(key manifests.ObjectKey, want, live map[string]any, liveVersion string, ignore []manifests.Pointer) ([]string, string) {
	if d.Holds(key, liveVersion, ignore) {
		return nil, ""
	}
	stamp := matchStamp(liveVersion, ignore)
	have, wanted := jsonvalue.Normalise(live), any(want)
	if len(ignore) > 0 || !jsonvalue.Contains(have, wanted) {
		var paths []string
		differences(have, wanted, nil, ignore, &paths)
		if len(paths) > 0 {
			return paths, stamp
		}
	}
	return nil, stamp
}

// matchStamp is what drifted remembers of a match: the resourceVersion, and
// the ignore rules it was compared with, since fewer rules compare more.
func matchStamp(version string, ignore []manifests.Pointer) string {
	if len(ignore) == 0 {
		return version
	}
	parts := make([]string, len(ignore))
	for i, p := range ignore {
		parts[i] = p.String()
	}
	return version + "|" + strings.Join(parts, ",")
}

// Accept records that the object at resourceVersion holds the desired fields.
func (d *Detector) Accept(key manifests.ObjectKey, resourceVersion string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.matched[key] = resourceVersion
	delete(d.reported, key)
}

// FirstReport tells whether the drift of paths, with the live values at
// them, differs from what was reported of key last, and remembers it: a
// drift is reported once per change, not once per look.
func (d *Detector) FirstReport(key manifests.ObjectKey, paths []string, live map[string]any) bool {
	fingerprint := driftFingerprint(paths, live)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.reported[key] == fingerprint {
		return false
	}
	d.reported[key] = fingerprint
	return true
}

// WouldReport is firstReport without remembering: what a dry run tells.
func (d *Detector) WouldReport(key manifests.ObjectKey, paths []string, live map[string]any) bool {
	fingerprint := driftFingerprint(paths, live)
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.reported[key] != fingerprint
}

// driftFingerprint sums the drifted paths and the live values at them.
func driftFingerprint(paths []string, live map[string]any) string {
	sum := sha256.New()
	for _, p := range paths {
		parsed, _ := manifests.ParsePointer(p)
		value, _ := json.Marshal(jsonvalue.Lookup(live, parsed))
		sum.Write([]byte(p + "\x00"))
		sum.Write(value)
		sum.Write([]byte{0})
	}
	return hex.EncodeToString(sum.Sum(nil))
}

func (d *Detector) Forget(key manifests.ObjectKey) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.matched, key)
	delete(d.reported, key)
}

// differences adds to paths the JSON pointers, under at, of the fields of
// want that have lacks or holds with another value, skipping ignored ones,
// until there are maxDriftPaths. A list that differs in length is one path.
func differences(have, want any, at manifests.Pointer, ignore []manifests.Pointer, paths *[]string) {
	if len(*paths) >= maxDriftPaths || isIgnored(at, ignore) {
		return
	}
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			if len(w) > 0 || have != nil {
				*paths = append(*paths, at.String())
			}
			return
		}
		for _, k := range jsonvalue.SortedKeys(w) {
			hv, found := h[k]
			if !found && jsonvalue.IsEmpty(w[k]) {
				continue
			}
			differences(hv, w[k], append(slices.Clip(at), k), ignore, paths)
		}
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			if ok || len(w) > 0 || have != nil {
				*paths = append(*paths, at.String())
			}
			return
		}
		for i := range w {
			differences(h[i], w[i], append(slices.Clip(at), strconv.Itoa(i)), ignore, paths)
		}
	case jsonvalue.AbsentOrZero:
		if !jsonvalue.IsZeroValue(have) {
			*paths = append(*paths, at.String())
		}
	default:
		if !reflect.DeepEqual(have, want) {
			*paths = append(*paths, at.String())
		}
	}
}

// isIgnored tells whether at is one of the ignored paths.
func isIgnored(at manifests.Pointer, ignore []manifests.Pointer) bool {
	for _, p := range ignore {
		if slices.Equal(at, p) {
			return true
		}
	}
	return false
}

// Log collects the drift a pass found and left; steps run concurrently.
type Log struct {
	mu     sync.Mutex
	drifts []Drift
}

func (l *Log) Add(d Drift) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.drifts = append(l.drifts, d)
}

// List returns the drifts in key order.
func (l *Log) List() []Drift {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.drifts)
	slices.SortFunc(out, func(a, b Drift) int { return kinds.CompareKeys(a.Object, b.Object) })
	return out
}
