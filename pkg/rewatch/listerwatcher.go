package rewatch

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
)

// ListerWatcher is an informer's ListerWatcher that waits for its API
// server instead of failing while the server is away, and keeps its watches
// open across the server's restarts (see the package doc).
type ListerWatcher struct {
	inner   toolscache.ListerWatcherWithContext
	example runtime.Object
	state   *state

	mu      sync.Mutex
	store   toolscache.Store
	stopped bool
}

// Wrap returns lw, the ListerWatcher of an informer of objects like
// example, wrapped; cluster and resource label its metrics. Give it the
// informer's store with SetStore once the informer is made: without one, a
// watch answered "too old" ends for the reflector to list again.
func Wrap(lw toolscache.ListerWatcher, example runtime.Object, cluster, resource string) *ListerWatcher {
	return &ListerWatcher{inner: toolscache.ToListerWatcherWithContext(lw), example: example, state: newState(cluster, resource)}
}

// SetStore gives l the store its informer fills: what a relist in place
// compares the list with.
func (l *ListerWatcher) SetStore(store toolscache.Store) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.store = store
	l.state.setCache(store)
}

func (l *ListerWatcher) storeOf() toolscache.Store {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.store
}

// ListWithContext lists, trying again while the API server is away.
func (l *ListerWatcher) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	l.stopWith(ctx)
	var list runtime.Object
	err := retry(ctx, l.state.lose, func(ctx context.Context) error {
		var err error
		list, err = l.inner.ListWithContext(own(ctx), opts)
		return err
	})
	if err == nil {
		l.state.found(howRelisted)
	}
	return list, err
}

// WatchWithContext watches from opts.ResourceVersion, trying again while
// the API server is away; the watch it returns is opened again, and
// relisted in place, whenever it is lost before its time (steady).
func (l *ListerWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	l.stopWith(ctx)
	w, err := l.open(ctx, opts)
	if err != nil {
		return nil, err
	}
	l.state.found(howResumed)
	return newSteady(ctx, l, opts, w), nil
}

// List is ListWithContext without a context.
func (l *ListerWatcher) List(opts metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), opts)
}

// Watch is WatchWithContext without a context.
func (l *ListerWatcher) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(context.Background(), opts)
}

// open opens a watch, trying again while the API server is away.
func (l *ListerWatcher) open(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	var w watch.Interface
	err := retry(ctx, l.state.lose, func(ctx context.Context) error {
		var err error
		w, err = l.inner.WatchWithContext(own(ctx), opts)
		return err
	})
	return w, err
}

// stopWith forgets l's state once ctx, its informer's, ends (once).
func (l *ListerWatcher) stopWith(ctx context.Context) {
	if ctx.Done() == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	l.stopped = true
	context.AfterFunc(ctx, l.state.stop)
}
