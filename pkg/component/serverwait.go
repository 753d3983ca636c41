package component

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
)

// probeInterval is how often the API server that components wait for is
// asked whether it is back; probeTimeout bounds one question.
const (
	probeInterval = 250 * time.Millisecond
	probeTimeout  = time.Second
)

// serverWaits holds the components whose last pass failed because their API
// server did not answer (the operator's own, or their target's): such a
// failure is the server's absence, not the component's, so it does not
// grow the component's retry backoff. The pass is requeued at the retry
// interval, with no error, and the component waits for its server: while
// any does, the server's /readyz is asked every probeInterval, and once it
// answers every component that waits for it is queued at once.
type serverWaits struct {
	operator string
	log      logr.Logger
	// retry is the requeue of a pass that waits (the retry interval).
	retry time.Duration
	// hostOf is the host of a component's target (the operator's own
	// before it has one); configOf a config that reaches host (a hostKey),
	// nil when none is known.
	hostOf   func(types.NamespacedName) string
	configOf func(host string) *rest.Config
	enqueue  func(context.Context, types.NamespacedName)

	mu    sync.Mutex
	ctx   context.Context // the controller's, once it runs
	hosts map[string]*serverWait
}

// serverWait is one API server that components wait for.
type serverWait struct {
	ids    map[types.NamespacedName]bool
	since  time.Time
	asking bool // a goroutine asks it whether it is back
}

// start gives w the context its probes run in (while the replica leads).
func (w *serverWaits) start(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ctx = ctx
}

// ctxOf is the context the probes run in: nil until run.
func (w *serverWaits) ctxOf() context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ctx
}

// settle is the result of a reconcile of id that ended with res and err:
// as it is, unless err says that an API server did not answer; then id
// waits for that server and the pass is requeued without an error.
func (w *serverWaits) settle(id types.NamespacedName, res ctrl.Result, err error) (ctrl.Result, error) {
	if w == nil {
		return res, err
	}
	if err == nil {
		w.passed(id)
		return res, nil
	}
	host, ok := w.awayHost(id, err)
	if !ok {
		return res, err
	}
	w.wait(id, host)
	requeue := w.retry
	if res.RequeueAfter > 0 {
		requeue = min(requeue, res.RequeueAfter)
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

// awayHost returns the API server that err says did not answer: the host
// of a target whose connection failed so; of a request that failed so, if
// it went to an API server the reconciler knows (not a chart repository);
// or, for a connection lost while a response was read (which names no
// host) and for an answer that says the server cannot serve now (503,
// 504: etcd did not answer in time), the component's target.
func (w *serverWaits) awayHost(id types.NamespacedName, err error) (string, bool) {
	var connecting *targets.UnreachableError
	if errors.As(err, &connecting) {
		return targets.HostKey(connecting.Host), true
	}
	var request *url.Error
	if errors.As(err, &request) {
		host := targets.HostKey(request.URL)
		return host, IsTargetUnreachable(err, "") && w.configOf(host) != nil
	}
	if connectionLost(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) {
		return targets.HostKey(w.hostOf(id)), true
	}
	return "", false
}

// connectionLost tells whether err is a connection's failure: refused,
// reset, closed before the end of a response, lost.
func connectionLost(err error) bool {
	var opErr *net.OpError
	return errors.As(err, &opErr) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) || utilnet.IsHTTP2ConnectionLost(err)
}

// passed notes that a pass of id succeeded: it waits for no server (an
// event brought it back before its server was asked).
func (w *serverWaits) passed(id types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, sw := range w.hosts {
		if sw.ids[id] {
			delete(sw.ids, id)
			awaitingServer.WithLabelValues(w.operator).Dec()
		}
	}
}

// wait makes id wait for host, and starts asking host whether it is back
// unless that is under way.
func (w *serverWaits) wait(id types.NamespacedName, host string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.hosts == nil {
		w.hosts = map[string]*serverWait{}
	}
	sw, known := w.hosts[host]
	if !known {
		sw = &serverWait{ids: map[types.NamespacedName]bool{}, since: time.Now()}
		w.hosts[host] = sw
	}
	if !sw.ids[id] {
		sw.ids[id] = true
		awaitingServer.WithLabelValues(w.operator).Inc()
	}
	if sw.asking || w.ctx == nil {
		return
	}
	cfg := w.configOf(host)
	if cfg == nil {
		return // nothing to ask it with: the retry interval requeues
	}
	sw.asking = true
	w.log.Info("an API server does not answer: the components whose pass it failed wait for it", "host", host)
	go w.ask(w.ctx, host, cfg)
}

// ask asks host's /readyz until it answers OK (or the controller stops),
// then queues every component that waits for host.
func (w *serverWaits) ask(ctx context.Context, host string, cfg *rest.Config) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = probeTimeout
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		w.release(ctx, host, err)
		return
	}
	tick := time.NewTicker(probeInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := dc.RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
		if err == nil || apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err) {
			w.release(ctx, host, nil) // it answers: its passes may run
			return
		}
	}
}

// release queues the components that wait for host; err says why it was
// not asked (nil: it answered).
func (w *serverWaits) release(ctx context.Context, host string, err error) {
	w.mu.Lock()
	sw := w.hosts[host]
	delete(w.hosts, host)
	w.mu.Unlock()
	if sw == nil {
		return
	}
	awaitingServer.WithLabelValues(w.operator).Sub(float64(len(sw.ids)))
	if err != nil {
		w.log.Error(err, "cannot ask the API server whether it is back; its components wait for the retry interval", "host", host)
	} else {
		w.log.Info("the API server answers again: the components that waited for it are queued",
			"host", host, "after", time.Since(sw.since).Round(time.Millisecond).String(), "components", len(sw.ids))
	}
	for id := range sw.ids {
		w.enqueue(ctx, id)
	}
}
