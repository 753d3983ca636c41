package rewatch

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// Pace of the tries while the API server does not answer: the first after
// firstTry, each next one twice as late, none later than lastTry.
const (
	firstTry = 100 * time.Millisecond
	lastTry  = time.Second
)

// ServerAway tells whether err says that the API server did not answer a
// request, or answered that it cannot serve it yet (see away): trying
// again once it is back will do.
func ServerAway(err error) bool { return away(err) }

// away tells whether err says that the API server did not answer the
// request, or answered that it cannot serve it yet: a connection refused,
// reset or lost, a dial or read timeout, a 429 (a watch cache that
// initializes, a server that shuts down), a 503 or a 504 (etcd did not
// answer in time). Those end when the server is back; a 403, a 404 or a
// 500 are answers, for the reflector to handle.
func away(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if apierrors.IsTooManyRequests(err) || apierrors.IsServiceUnavailable(err) ||
		apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) {
		return true
	}
	if utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || utilnet.IsProbableEOF(err) || utilnet.IsHTTP2ConnectionLost(err) {
		return true
	}
	var opErr *net.OpError
	var netErr net.Error
	return errors.As(err, &opErr) || errors.As(err, &netErr)
}

// pace spaces the tries of one request while the server is away.
type pace struct{ next time.Duration }

// wait waits before the next try, or until ctx ends; it reports whether
// to try again.
func (p *pace) wait(ctx context.Context) bool {
	if p.next == 0 {
		p.next = firstTry
	}
	d := p.next + time.Duration(rand.Int64N(int64(p.next/5))) // up to a fifth more, so that informers spread
	p.next = min(2*p.next, lastTry)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// retry runs try until it succeeds, fails with an error that is not away,
// or ctx ends, waiting at pace between tries; lost is called at the first
// failure that is away.
func retry(ctx context.Context, lost func(), try func(context.Context) error) error {
	var p pace
	for {
		err := try(ctx)
		if !away(err) || ctx.Err() != nil {
			return err
		}
		lost()
		if !p.wait(ctx) {
			return err
		}
	}
}
