package component

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// ReasonTargetUnreachable: the Reconcile failed because the target
// cluster's API server did not answer (a refused or reset connection, a
// name that does not resolve, a dial, TLS handshake or read timeout, a
// lost HTTP/2 connection, a 503). It is retried as a passing error
// (Reconciling, never Stalled: no change of the component helps, the
// cluster's return does); the message holds the error.
const ReasonTargetUnreachable = "TargetUnreachable"

// IsTargetUnreachable tells whether err says that the API server at host
// (a rest.Config's Host) did not answer, rather than that it answered with
// a refusal or an error. It looks at the errors' types: a request's
// url.Error, which must be to host when host is given (a chart repository
// that does not answer is not the target), holding a net.OpError, a
// net.DNSError or a net.Error that timed out, or one of the transport's
// errors apimachinery's utilnet recognises; or an API status 503. A
// certificate the client does not trust, a 403 or a 500 are answers.
func IsTargetUnreachable(err error, host string) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if apierrors.IsServiceUnavailable(err) {
		return true
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
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	r, err1 := url.Parse(requestURL)
	h, err2 := url.Parse(host)
	return err1 == nil && err2 == nil && strings.EqualFold(r.Host, h.Host)
}

// unreachable gives o the reason ReasonTargetUnreachable when err says
// the target at host (none: nothing to tell) did not answer and o is a failure (Retrying, or an
// Error, which a render error that wraps the target's answer is): it is
// no longer Stalled, and is retried when o says.
func unreachable(err error, o outcome, host string) outcome {
	if host != "" && (o.reason == ReasonRetrying || o.reason == ReasonError) && IsTargetUnreachable(err, host) {
		o.reason, o.stalled = ReasonTargetUnreachable, false
	}
	return o
}

// hostOf is the host of the component's target; "" when it has none.
func (t *targets) hostOf(id types.NamespacedName) string {
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
		return tg.host
	}
	return ""
}
