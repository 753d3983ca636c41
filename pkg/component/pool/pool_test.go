package pool_test

import (
	"context"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/wavekit-dev/wavekit/pkg/component/pool"
)

// The pool runs without an API server: its lanes' sources are functions
// that keep the queue they are given, and their reconcilers record what
// they were given.
var _ = Describe("a pool of workers shared by lanes", func() {
	var (
		ctx context.Context
		p   *pool.Pool
	)
	start := func(workers int) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(context.Background())
		DeferCleanup(cancel)
		var err error
		p, err = pool.New("test", pool.Options{Workers: workers, Logger: GinkgoLogr})
		Expect(err).NotTo(HaveOccurred())
		go func() { defer GinkgoRecover(); Expect(p.Start(ctx)).To(Succeed()) }()
	}
	// run starts a lane of r and returns its queue and the function that
	// stops it, which returns once the lane's Start did.
	run := func(name string, r reconcile.Reconciler) (queue, func()) {
		queues := make(chan queue, 1)
		src := source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
			queues <- q
			return nil
		})
		laneCtx, stop := context.WithCancel(ctx)
		ended := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(ended)
			Expect(p.Lane(name, r, pool.LaneOptions{Sources: []source.Source{src}}).Start(laneCtx)).To(Succeed())
		}()
		var q queue
		Eventually(queues).Should(Receive(&q))
		return q, func() { stop(); Eventually(ended).Should(BeClosed()) }
	}

	It("hands each lane's requests to the lane's reconciler, with priorities", func() {
		start(2)
		a, b := &recorder{}, &recorder{}
		qa, _ := run("a", a)
		qb, _ := run("b", b)
		qa.Add(request("x"))
		qb.Add(request("x"))
		pq, ok := qb.(priorityqueue.PriorityQueue[reconcile.Request])
		Expect(ok).To(BeTrue(), "a lane sees a priority queue when the pool has one")
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(-100)}, request("y"))
		Eventually(a.names).Should(ConsistOf("x"))
		Eventually(b.names).Should(ConsistOf("x", "y"))
	})

	It("works on as many requests at once as it has workers, whatever their lanes", func() {
		start(2)
		gate := &gated{release: make(chan struct{})}
		for _, lane := range []string{"a", "b", "c"} {
			q, _ := run(lane, gate)
			q.Add(request("one"))
			q.Add(request("two"))
		}
		Eventually(gate.running.Load).Should(BeEquivalentTo(2))
		Consistently(gate.running.Load).Should(BeEquivalentTo(2))
		close(gate.release)
		Eventually(gate.done.Load).Should(BeEquivalentTo(6))
		Expect(gate.most.Load()).To(BeEquivalentTo(2))
	})

	It("stops a lane: cancels its reconcile in progress and waits for it, drops what it left, and the other lanes go on", func() {
		start(2)
		blocked := &untilCanceled{started: make(chan struct{}, 1)}
		other := &recorder{}
		qa, stopA := run("a", blocked)
		qb, _ := run("b", other)
		qa.Add(request("held"))
		Eventually(blocked.started).Should(Receive())
		stopA()
		Expect(*blocked.err.Load()).To(MatchError(context.Canceled), "the stop canceled the reconcile, and Start waited for it")
		qa.Add(request("late"))
		qb.Add(request("after"))
		Eventually(other.names).Should(ConsistOf("after"))
		Expect(blocked.calls.Load()).To(BeEquivalentTo(1), "the stopped lane's request was dropped")
	})

	It("refuses a second lane of the same name while the first runs", func() {
		start(1)
		_, _ = run("a", &recorder{})
		err := p.Lane("a", &recorder{}, pool.LaneOptions{}).Start(ctx)
		Expect(err).To(MatchError(ContainSubstring("has a lane a already")))
	})
})

type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]

func request(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
}

// recorder records the names of the requests it was given.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) Reconcile(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, req.Name)
	return reconcile.Result{}, nil
}

func (r *recorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// gated holds every reconcile until release is closed, and counts them.
type gated struct {
	release             chan struct{}
	running, most, done atomic.Int32
}

func (g *gated) Reconcile(context.Context, reconcile.Request) (reconcile.Result, error) {
	now := g.running.Add(1)
	for {
		most := g.most.Load()
		if now <= most || g.most.CompareAndSwap(most, now) {
			break
		}
	}
	<-g.release
	g.running.Add(-1)
	g.done.Add(1)
	return reconcile.Result{}, nil
}

// untilCanceled holds a reconcile until its context ends, and keeps why.
type untilCanceled struct {
	started chan struct{}
	calls   atomic.Int32
	err     atomic.Pointer[error]
}

func (u *untilCanceled) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	u.calls.Add(1)
	u.started <- struct{}{}
	<-ctx.Done()
	err := ctx.Err()
	u.err.Store(&err)
	return reconcile.Result{}, nil
}
