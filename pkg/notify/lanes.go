package notify

import (
	"context"
	"sync"
	"time"
)

// laneIdle is how long a receiver's queue and goroutine stay without a
// delivery before they go.
const laneIdle = time.Minute

// lanes are the receivers' queues, each with one goroutine that delivers
// in order: a receiver that hangs or is down holds up only its own queue,
// which fills and then drops.
type lanes struct {
	d     *Dispatcher
	mu    sync.Mutex
	byKey map[string]chan delivery
	wg    sync.WaitGroup
}

// enqueue puts dl in the queue of receiver, starting the queue when there
// is none, and says why it could not ("" when it did).
func (l *lanes) enqueue(ctx context.Context, receiver string, dl delivery) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	queue, ok := l.byKey[receiver]
	if !ok {
		if len(l.byKey) >= l.d.opts.MaxReceivers {
			return reasonTooManyReceivers
		}
		queue = make(chan delivery, l.d.opts.ReceiverQueueSize)
		l.byKey[receiver] = queue
		l.wg.Add(1)
		go l.run(ctx, receiver, queue)
	}
	select {
	case queue <- dl:
		return ""
	default:
		return reasonQueueFull
	}
}

// run delivers what comes into queue until ctx ends, or until it has been
// idle for laneIdle with nothing queued.
func (l *lanes) run(ctx context.Context, receiver string, queue chan delivery) {
	defer l.wg.Done()
	idle := l.d.opts.Clock.NewTimer(laneIdle)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case dl := <-queue:
			l.d.deliver(ctx, receiver, dl)
			idle.Reset(laneIdle)
		case <-idle.C():
			if l.retire(receiver, queue) {
				return
			}
			idle.Reset(laneIdle)
		}
	}
}

// retire removes the receiver's queue if it is empty, and says whether it did.
func (l *lanes) retire(receiver string, queue chan delivery) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(queue) > 0 {
		return false
	}
	delete(l.byKey, receiver)
	return true
}

// wait returns once every queue's goroutine has returned.
func (l *lanes) wait() { l.wg.Wait() }
