package rewatch

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/pager"
)

// endMargin: a watch that the server ends less than this before the time
// the reflector asked for ended on time, not because it was lost.
const endMargin = 2 * time.Second

// errNoStore: a watch answered "too old" cannot be relisted in place
// without the informer's store.
var errNoStore = errors.New("no store to compare a relist with")

// steady is the watch the reflector holds: it forwards the events of the
// API server's watch and, when that one is lost before the reflector's
// time, opens another from the last resource version it forwarded, or
// relists in place when the server answers that version too old. It ends
// at the reflector's time, when the reflector stops it, or with an error
// event for an error the reflector must handle itself.
type steady struct {
	l        *ListerWatcher
	opts     metav1.ListOptions
	deadline time.Time // zero: none
	out      chan watch.Event
	ctx      context.Context
	cancel   context.CancelFunc

	mu    sync.Mutex
	inner watch.Interface
	rv    string // the resource version forwarded last
	// listing: the watch streams the reflector's list (client-go's
	// WatchListClient) and has not sent the bookmark that ends it. What is
	// lost then is the reflector's to list again: passed on, not resumed.
	listing bool
}

func newSteady(ctx context.Context, l *ListerWatcher, opts metav1.ListOptions, inner watch.Interface) *steady {
	ctx, cancel := context.WithCancel(ctx)
	s := &steady{l: l, opts: opts, out: make(chan watch.Event), ctx: ctx, cancel: cancel, inner: inner, rv: opts.ResourceVersion,
		listing: opts.SendInitialEvents != nil && *opts.SendInitialEvents}
	if opts.TimeoutSeconds != nil {
		s.deadline = time.Now().Add(time.Duration(*opts.TimeoutSeconds) * time.Second)
	}
	go s.run()
	return s
}

// ResultChan is the channel of the events the reflector reads.
func (s *steady) ResultChan() <-chan watch.Event { return s.out }

// Stop ends the watch; the channel closes once the forwarding stopped.
func (s *steady) Stop() { s.cancel() }

// run forwards until the watch ends, reconnecting whatever is lost.
func (s *steady) run() {
	defer close(s.out)
	defer func() { s.current().Stop() }()
	for {
		err := s.forward()
		switch {
		case s.ctx.Err() != nil:
			return
		case err == nil && (s.endsNow() || s.stillListing()):
			return // on time, or a list cut short: the reflector watches again
		case err != nil && (s.stillListing() || !expired(err) && !away(err)):
			s.fail(err) // for the reflector to handle, as without the wrapper
			return
		}
		s.l.state.lose()
		how, err := s.recover(err)
		if err != nil {
			s.fail(err)
			return
		}
		s.l.state.found(how)
	}
}

// recover watches again after a watch was lost with err (nil: it closed):
// from the last resource version forwarded, or, when the server answers
// that version too old, from a relist in place. It reports how.
func (s *steady) recover(err error) (string, error) {
	how := howResumed
	var p pace
	for {
		if expired(err) {
			how = howRelisted
			if err := s.relist(); err != nil {
				return how, err
			}
		}
		err = s.reopen()
		if err == nil || !expired(err) {
			return how, err
		}
		if !p.wait(s.ctx) { // too old again, at once: not in a tight loop
			return how, s.ctx.Err()
		}
	}
}

// expired tells whether err says that a resource version is too old.
func expired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// forward sends the events of the current watch on until it closes (nil),
// ends with an error event (its error), or the watch is stopped.
func (s *steady) forward() error {
	events := s.current().ResultChan()
	for {
		var e watch.Event
		var open bool
		select {
		case <-s.ctx.Done():
			return nil
		case e, open = <-events:
		}
		if !open {
			return nil
		}
		if e.Type == watch.Error {
			return apierrors.FromObject(e.Object)
		}
		// Read before it is sent: the informer transforms it in place.
		rv := ""
		if m, err := meta.Accessor(e.Object); err == nil {
			rv = m.GetResourceVersion()
		}
		listEnd := e.Type == watch.Bookmark && endsInitialEvents(e.Object)
		if !s.send(e) {
			return nil
		}
		s.mu.Lock()
		if rv != "" {
			s.rv = rv
		}
		if listEnd {
			s.listing = false
		}
		s.mu.Unlock()
	}
}

// stillListing tells whether the reflector's list has not ended yet.
func (s *steady) stillListing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listing
}

// endsInitialEvents tells whether obj is the bookmark that ends a watch's
// initial events (the reflector's list).
func endsInitialEvents(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	return err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
}

// send forwards e to the reflector unless the watch is stopped.
func (s *steady) send(e watch.Event) bool {
	select {
	case <-s.ctx.Done():
		return false
	case s.out <- e:
		s.l.state.delivering()
		return true
	}
}

// fail ends the watch with err for the reflector, unless it was stopped.
func (s *steady) fail(err error) {
	if s.ctx.Err() != nil {
		return
	}
	status, ok := err.(apierrors.APIStatus)
	if !ok || errors.Is(err, errNoStore) {
		// The reflector lists again on an expired watch, and logs the rest.
		status = apierrors.NewResourceExpired(err.Error())
	}
	s.send(watch.Event{Type: watch.Error, Object: ptrTo(status.Status())})
}

func ptrTo(s metav1.Status) *metav1.Status { return &s }

// endsNow tells whether the reflector's time for this watch is (nearly) up.
func (s *steady) endsNow() bool {
	return !s.deadline.IsZero() && time.Until(s.deadline) < endMargin
}

func (s *steady) current() watch.Interface {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inner
}

// reopen opens a watch from the last resource version forwarded, for the
// time the reflector has left.
func (s *steady) reopen() error {
	opts := s.opts
	opts.SendInitialEvents, opts.ResourceVersionMatch = nil, "" // the list is over: a plain watch
	s.mu.Lock()
	opts.ResourceVersion = s.rv
	s.mu.Unlock()
	if !s.deadline.IsZero() {
		left := int64(time.Until(s.deadline).Seconds())
		opts.TimeoutSeconds = &left
	}
	w, err := s.l.open(s.ctx, opts)
	if err != nil {
		return err
	}
	s.mu.Lock()
	old := s.inner
	s.inner = w
	s.mu.Unlock()
	old.Stop()
	return nil
}

// relist lists what the API server holds now and forwards its difference
// from the informer's store as events, then a bookmark at the list's
// resource version, from which reopen watches on.
func (s *steady) relist() error {
	store := s.l.storeOf()
	if store == nil {
		return errNoStore
	}
	var list runtime.Object
	err := retry(s.ctx, s.l.state.lose, func(ctx context.Context) error {
		var err error
		list, _, err = pager.New(s.l.inner.ListWithContext).List(own(ctx), metav1.ListOptions{})
		return err
	})
	if err != nil {
		return err
	}
	rv, events, err := difference(store, list)
	if err != nil {
		return err
	}
	for _, e := range events {
		if !s.send(e) {
			return s.ctx.Err()
		}
	}
	if !s.send(watch.Event{Type: watch.Bookmark, Object: s.bookmark(rv)}) {
		return s.ctx.Err()
	}
	s.mu.Lock()
	s.rv = rv
	s.mu.Unlock()
	return nil
}

// difference returns the resource version of list and the events that
// make store hold what list holds: an object added or changed since, one
// deleted since (with its last state the store kept).
func difference(store toolscache.Store, list runtime.Object) (string, []watch.Event, error) {
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return "", nil, fmt.Errorf("reading the list: %w", err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return "", nil, fmt.Errorf("reading the list: %w", err)
	}
	held := map[string]string{}
	for _, obj := range store.List() {
		key, err := toolscache.MetaNamespaceKeyFunc(obj)
		if m, merr := meta.Accessor(obj); err == nil && merr == nil {
			held[key] = m.GetResourceVersion()
		}
	}
	var events []watch.Event
	for _, item := range items {
		key, err := toolscache.MetaNamespaceKeyFunc(item)
		m, merr := meta.Accessor(item)
		if err != nil || merr != nil {
			continue
		}
		switch rv, ok := held[key]; {
		case !ok:
			events = append(events, watch.Event{Type: watch.Added, Object: item})
		case rv != m.GetResourceVersion():
			events = append(events, watch.Event{Type: watch.Modified, Object: item})
		}
		delete(held, key)
	}
	for key := range held {
		if last, exists, err := store.GetByKey(key); err == nil && exists {
			if obj, ok := last.(runtime.Object); ok {
				// A copy: the informer transforms what it is sent in place,
				// and its store's objects are read meanwhile.
				events = append(events, watch.Event{Type: watch.Deleted, Object: obj.DeepCopyObject()})
			}
		}
	}
	return listMeta.GetResourceVersion(), events, nil
}

// bookmark is an object of the informer's type that carries only rv.
func (s *steady) bookmark(rv string) runtime.Object {
	obj := reflect.New(reflect.TypeOf(s.l.example).Elem()).Interface().(runtime.Object)
	obj.GetObjectKind().SetGroupVersionKind(s.l.example.GetObjectKind().GroupVersionKind())
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(rv)
	}
	return obj
}
