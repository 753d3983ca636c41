package targets

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// IsUnreachable tells whether err says that the API server at host
// (a rest.Config's Host) did not answer, rather than that it answered with
// a refusal or an error. It looks at the errors' types: the error of a
// connection to the target that did not answer (an UnreachableError, to
// host when host is given), a request's url.Error, which must be to host
// when host is given (a chart repository that does not answer is not the
// target), holding a net.OpError, a net.DNSError or a net.Error that timed
// out, or one of the transport's errors apimachinery's utilnet recognises;
// or an API status 503. A certificate the client does not trust, a 403 or
// a 500 are answers.
func IsUnreachable(err error, host string) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if apierrors.IsServiceUnavailable(err) {
		return true
	}
	var connecting *UnreachableError
	if errors.As(err, &connecting) {
		return host == "" || sameHost(WithScheme(connecting.Host), host)
	}
	var request *url.Error
	if !errors.As(err, &request) || (host != "" && !sameHost(request.URL, host)) {
		return false
	}
	var opErr *net.OpError
	var dnsErr *net.DNSError
	var netErr net.Error
	switch inner := request.Err; {
	case errors.As(inner, &opErr), errors.As(inner, &dnsErr):
		return true
	case errors.As(inner, &netErr) && netErr.Timeout():
		return true // a dial, TLS handshake or response header timeout
	default:
		return utilnet.IsConnectionRefused(inner) || utilnet.IsConnectionReset(inner) ||
			utilnet.IsHTTP2ConnectionLost(inner) || utilnet.IsProbableEOF(inner)
	}
}

// sameHost tells whether the URL of a request is to host, a rest.Config's
// Host (a URL, or host:port).
func sameHost(requestURL, host string) bool {
	r, err1 := url.Parse(requestURL)
	h, err2 := url.Parse(WithScheme(host))
	return err1 == nil && err2 == nil && strings.EqualFold(r.Host, h.Host)
}

// WithScheme is a rest.Config's Host as a URL.
func WithScheme(host string) string {
	if !strings.Contains(host, "://") {
		return "https://" + host
	}
	return host
}

// HostKey is the scheme and host of a rest.Config's Host or a request's
// URL: how the servers components wait for are told apart.
func HostKey(hostOrURL string) string {
	u, err := url.Parse(WithScheme(hostOrURL))
	if err != nil {
		return hostOrURL
	}
	return u.Scheme + "://" + u.Host
}

// connectingBound is how long a target may be connecting, from its first
// try, before its components count it as unreachable: a dial that hangs,
// or the transport's retries of connections closed before an answer
// (client-go tries a GET ten times, a second apart), would keep a new
// cluster "connecting" for the connection's whole start timeout otherwise.
const connectingBound = 10 * time.Second

// UnreachableError is the connection to a target whose cluster did not
// answer: a connection that failed so (IsTargetUnreachable), one that has
// not answered for connectingBound, or one tried again after such a
// failure. Its type, not its text, makes a pass's reason
// ReasonTargetUnreachable, for a cluster that never answered as for one
// that stopped answering.
type UnreachableError struct {
	Host string
	err  error
}

func (e *UnreachableError) Error() string { return e.err.Error() }

func (e *UnreachableError) Unwrap() error { return e.err }

// downState is a target key whose last connection failed because its
// cluster did not answer: since when, and with what error.
type downState struct {
	since time.Time
	err   error
}

// stillConnecting is the error of tg, still connecting at now: an
// UnreachableError when the key's last connection found its cluster down
// or tg has been connecting for connectingBound; otherwise it says that
// the connection is under way.
func (t *Set) stillConnecting(key targetKey, tg *Target, now time.Time) error {
	t.mu.Lock()
	down, known := t.down[key]
	t.mu.Unlock()
	switch {
	case known:
		return &UnreachableError{Host: tg.Host, err: fmt.Errorf("connecting to %s again, which has not answered since %s: %w",
			tg.Host, down.since.UTC().Format(time.RFC3339), down.err)}
	case now.Sub(tg.since) >= connectingBound:
		return &UnreachableError{Host: tg.Host, err: fmt.Errorf("target cluster %s has not answered for %s: still connecting",
			tg.Host, now.Sub(tg.since).Truncate(time.Second))}
	}
	return fmt.Errorf("still connecting to %s", tg.Host)
}

// failedLocked is the error of tg, whose connection failed: an
// UnreachableError, recorded for key, when the cluster did not answer (a
// request that failed so, or the connection's start timeout); tg's own
// error otherwise, and the key is no longer down.
func (t *Set) failedLocked(key targetKey, tg *Target) error {
	if !IsUnreachable(tg.err, tg.Host) && !errors.Is(tg.err, context.DeadlineExceeded) {
		delete(t.down, key)
		return tg.err
	}
	since := tg.since
	if previous, ok := t.down[key]; ok {
		since = previous.since
	}
	if t.down == nil {
		t.down = map[targetKey]downState{}
	}
	t.down[key] = downState{since: since, err: tg.err}
	return &UnreachableError{Host: tg.Host, err: tg.err}
}

// forgetDownLocked drops key's record once no component uses it.
func (t *Set) forgetDownLocked(key targetKey) {
	for _, k := range t.byComponent {
		if k == key {
			return
		}
	}
	delete(t.down, key)
}

// HostOf is the host of the component's target; "" when it has none.
func (t *Set) HostOf(id types.NamespacedName) string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	key, ok := t.byComponent[id]
	if !ok {
		return ""
	}
	if tg, ok := t.byKey[key]; ok {
		return tg.Host
	}
	return ""
}
