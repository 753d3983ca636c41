package dynamic

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// Options configure a served kind.
type Options struct {
	// AddToScheme adds types to the served kind's own scheme, which holds
	// T as the kind (and its list): the scheme that the reconciler's client
	// and the controller name the kind by. Leave it nil: the objects the
	// components render and apply are the manager's scheme's, and every
	// other object the reconciler reads or writes goes through the manager.
	// Each served kind holds what it adds (client-go's whole scheme is
	// about 250 KiB).
	AddToScheme func(*runtime.Scheme) error
	// StopTimeout bounds how long Stop waits for reconciles in progress
	// (default 30s).
	StopTimeout time.Duration
}

// Served is a kind being served.
type Served struct {
	gvk    schema.GroupVersionKind
	cancel context.CancelFunc
	done   chan struct{}
	remove func(context.Context) error
	wait   time.Duration

	mu  sync.Mutex
	err error
}

// Start serves the kind gvk with r, whose components are of type T, on
// mgr, which may already be running: it sets r up on a view of mgr (see
// the package's doc) and runs what r added to it until ctx ends or Stop is
// called. The kind's CRD must be served by the API server. r must not have
// been set up before.
func Start[T component.Component](ctx context.Context, mgr ctrl.Manager, gvk schema.GroupVersionKind, r *component.Reconciler[T], opts Options) (*Served, error) {
	scheme := runtime.NewScheme()
	if opts.AddToScheme != nil {
		if err := opts.AddToScheme(scheme); err != nil {
			return nil, fmt.Errorf("serving %s: the scheme: %w", gvk, err)
		}
	}
	k := kind[T]{gvk: gvk}
	metav1.AddToGroupVersion(scheme, gvk.GroupVersion())
	scheme.AddKnownTypeWithName(gvk, newObject[T]())
	scheme.AddKnownTypeWithName(gvk.GroupVersion().WithKind(gvk.Kind+"List"), &List[T]{})
	v := newView(mgr, k, scheme)
	if err := r.SetupWithManager(v); err != nil {
		return nil, fmt.Errorf("serving %s: %w", gvk, err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	s := &Served{gvk: gvk, cancel: cancel, done: make(chan struct{}), wait: opts.StopTimeout,
		remove: func(ctx context.Context) error {
			return errors.Join(v.owned.removeHandlers(), mgr.GetCache().RemoveInformer(ctx, k.empty()))
		}}
	if s.wait <= 0 {
		s.wait = 30 * time.Second
	}
	runnables := v.taken()
	// The last runnable to end closes done: no goroutine a kind waits
	// for them.
	var running atomic.Int32
	running.Store(int32(len(runnables)))
	if len(runnables) == 0 {
		close(s.done)
	}
	for _, run := range runnables {
		go func() {
			defer func() {
				if running.Add(-1) == 0 {
					close(s.done)
				}
			}()
			if err := run.Start(runCtx); err != nil && !errors.Is(err, context.Canceled) {
				s.fail(err)
				cancel()
			}
		}()
	}
	return s, nil
}

func (s *Served) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// Done is closed once the kind is no longer served: Stop was called, its
// context ended, or what serves it failed (Err says why).
func (s *Served) Done() <-chan struct{} { return s.done }

// Err is why serving the kind ended on its own, if it did.
func (s *Served) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Stop stops serving the kind: its controller ends (reconciles in progress
// are waited for, up to the stop timeout), its event handlers leave the
// manager's informers and its informer leaves the manager's cache.
func (s *Served) Stop() error {
	s.cancel()
	select {
	case <-s.done:
	case <-time.After(s.wait):
		return fmt.Errorf("serving %s: reconciles still running after %s", s.gvk, s.wait)
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.wait)
	defer cancel()
	if err := s.remove(ctx); err != nil {
		return fmt.Errorf("serving %s: removing its informer: %w", s.gvk, err)
	}
	return nil
}
