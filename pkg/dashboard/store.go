package dashboard

import (
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
)

// store keeps what the page shows, updated by the informers' events: one
// record per component and the recent Events per object. Requests read it
// and never reach the API server.
type store struct {
	mu      sync.RWMutex
	records map[string]*record
	sets    map[string]*setRecord
	events  map[objectKey]map[string]event
	// changed is told the namespace of every change.
	changed func(namespace string)
	log     logr.Logger
}

func newStore(log logr.Logger, changed func(string)) *store {
	return &store{records: map[string]*record{}, sets: map[string]*setRecord{}, events: map[objectKey]map[string]event{}, changed: changed, log: log}
}

// componentHandler keeps the records of one kind up to date; keys, when
// sets control components of the kind, find their set, cluster and wave.
func (s *store) componentHandler(kind kindInfo, keys *memberKeys) toolscache.ResourceEventHandler {
	update := func(obj any) {
		m, err := toUnstructured(obj)
		if err == nil {
			var r *record
			if r, err = newRecord(kind, m, keys); err == nil {
				s.put(r)
				return
			}
		}
		s.log.Error(err, "reading a component")
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    update,
		UpdateFunc: func(_, obj any) { update(obj) },
		DeleteFunc: func(obj any) {
			m, err := toUnstructured(unwrapTombstone(obj))
			if err != nil {
				s.log.Error(err, "reading a deleted component")
				return
			}
			if r, err := newRecord(kind, m, keys); err == nil {
				s.remove(r)
			}
		},
	}
}

// unwrapTombstone returns the object a delete notification is about.
func unwrapTombstone(obj any) any {
	if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}

func (s *store) put(r *record) {
	s.mu.Lock()
	s.records[r.key()] = r
	s.mu.Unlock()
	s.changed(r.namespace)
}

func (s *store) remove(r *record) {
	s.mu.Lock()
	delete(s.records, r.key())
	s.mu.Unlock()
	s.changed(r.namespace)
}

// list returns the records that visible admits, sorted.
func (s *store) list(visible func(r *record) bool) []*record {
	s.mu.RLock()
	out := make([]*record, 0, len(s.records))
	for _, r := range s.records {
		if visible(r) {
			out = append(out, r)
		}
	}
	s.mu.RUnlock()
	sortRecords(out)
	return out
}

// get returns one record, or nil.
func (s *store) get(key string) *record {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.records[key]
}

// eventHandler keeps the recent Events per object.
func (s *store) eventHandler() toolscache.ResourceEventHandler {
	update := func(obj any) {
		if e, ok := obj.(*corev1.Event); ok {
			s.putEvent(e)
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    update,
		UpdateFunc: func(_, obj any) { update(obj) },
		DeleteFunc: func(obj any) {
			if e, ok := unwrapTombstone(obj).(*corev1.Event); ok {
				s.removeEvent(e)
			}
		},
	}
}

func (s *store) putEvent(e *corev1.Event) {
	key := eventObject(e)
	s.mu.Lock()
	byUID := s.events[key]
	if byUID == nil {
		byUID = map[string]event{}
		s.events[key] = byUID
	}
	byUID[string(e.UID)] = newEvent(e)
	s.mu.Unlock()
	s.changed(e.Namespace)
}

func (s *store) removeEvent(e *corev1.Event) {
	key := eventObject(e)
	s.mu.Lock()
	delete(s.events[key], string(e.UID))
	if len(s.events[key]) == 0 {
		delete(s.events, key)
	}
	s.mu.Unlock()
}

// eventsOf returns the Events of the objects, newest first, at most limit.
func (s *store) eventsOf(objects []objectKey, limit int) []event {
	s.mu.RLock()
	var out []event
	for _, key := range objects {
		for _, e := range s.events[key] {
			out = append(out, e)
		}
	}
	s.mu.RUnlock()
	return newestEvents(out, limit)
}
