package targets

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
)

// targetHost is the Host of the target's rest.Config.
const targetHost = "https://10.0.0.1:6443"

// request wraps err as client-go returns a failed request to the target.
func request(err error) error {
	return fmt.Errorf("applying apps/Deployment shop/web: %w",
		&url.Error{Op: "Patch", URL: targetHost + "/apis/apps/v1/namespaces/shop/deployments/web", Err: err})
}

// timeoutError stands for net/http's TLS handshake timeout, a net.Error of
// an unexported type.
type timeoutError struct{}

func (timeoutError) Error() string   { return "net/http: TLS handshake timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func TestIsUnreachable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", request(refused), true},
		{"no such host", request(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.gone", IsNotFound: true}}), true},
		{"a DNS error outside a request: whose?", &net.DNSError{Err: "no such host", Name: "api.gone"}, false},
		{"TLS handshake timeout", request(timeoutError{}), true},
		{"connection reset", request(os.NewSyscallError("read", syscall.ECONNRESET)), true},
		{"HTTP/2 connection lost", request(errors.New("http2: client connection lost")), true},
		{"EOF", request(io.EOF), true},
		{"503 from the API server", fmt.Errorf("listing: %w", apierrors.NewServiceUnavailable("the server is currently unable to handle the request")), true},
		{"a host:port Host", request(refused), true},
		{"a chart repository that does not answer is not the target", fmt.Errorf("rendering: fetching chart: %w",
			&url.Error{Op: "Get", URL: "https://charts.example.com/index.yaml", Err: refused}), false},
		{"a net error outside a request", refused, false},
		{"an untrusted certificate is an answer", request(x509.UnknownAuthorityError{}), false},
		{"Forbidden", apierrors.NewForbidden(gr, "web", errors.New("no")), false},
		{"500", apierrors.NewInternalError(errors.New("etcd")), false},
		{"conflict", apierrors.NewConflict(gr, "web", errors.New("changed")), false},
		{"canceled", fmt.Errorf("connecting: %w", context.Canceled), false},
		{"a render error", errors.New("rendering: template: web.yaml:3: nil pointer"), false},
		{"nil", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host := targetHost
			if tc.name == "a host:port Host" {
				host = "10.0.0.1:6443"
			}
			if got := IsUnreachable(tc.err, host); got != tc.want {
				t.Errorf("IsUnreachable(%v) = %t, want %t", tc.err, got, tc.want)
			}
		})
	}
}

// A cluster that never answered: the errors of its connection, whatever
// their text, are unreachable by their type.
func TestConnectionUnreachable(t *testing.T) {
	refused := request(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
	unauthorized := apierrors.NewUnauthorized("bad token")
	now := time.Now()
	for _, tc := range []struct {
		name        string
		since       time.Time // when the target started connecting
		down        bool      // the key's last connection found the cluster down
		err         error     // nil: still connecting
		unreachable bool
		keepsDown   bool
	}{
		{name: "connecting, within the bound", since: now.Add(-connectingBound + time.Second)},
		{name: "connecting for the bound", since: now.Add(-connectingBound), unreachable: true},
		{name: "connecting again after the cluster did not answer", since: now, down: true, unreachable: true, keepsDown: true},
		{name: "a refused connection", since: now, err: refused, unreachable: true, keepsDown: true},
		{name: "the connection's start timeout", since: now, err: fmt.Errorf("target cluster does not answer within 30s: %w", context.DeadlineExceeded), unreachable: true, keepsDown: true},
		{name: "an answer: unauthorized", since: now, down: true, err: unauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := &Set{}
			key := targetKey{kubeconfig: "k"}
			if tc.down {
				ts.down = map[targetKey]downState{key: {since: now.Add(-time.Minute), err: refused}}
			}
			tg := &Target{Host: targetHost, since: tc.since, err: tc.err}
			var err error
			if tc.err == nil {
				err = ts.stillConnecting(key, tg, now)
			} else {
				err = ts.failedLocked(key, tg)
			}
			if got := IsUnreachable(err, targetHost); got != tc.unreachable {
				t.Errorf("IsUnreachable(%v) = %t, want %t", err, got, tc.unreachable)
			}
			// What makes a pass's reason TargetUnreachable with no target host
			// to compare: the error's type, through the retry's wrapping.
			var connecting *UnreachableError
			if got := errors.As(api.Retriable(err, 0), &connecting); got != tc.unreachable {
				t.Errorf("an UnreachableError within the retriable error: %t, want %t", got, tc.unreachable)
			}
			if _, down := ts.down[key]; tc.err != nil && down != tc.keepsDown {
				t.Errorf("the key is down: %t, want %t", down, tc.keepsDown)
			}
		})
	}
}

// The first failure's time stays while the cluster keeps not answering.
func TestDownSinceTheFirstFailure(t *testing.T) {
	refused := request(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
	first := time.Now().Add(-time.Hour)
	ts := &Set{}
	key := targetKey{kubeconfig: "k"}
	_ = ts.failedLocked(key, &Target{Host: targetHost, since: first, err: refused})
	_ = ts.failedLocked(key, &Target{Host: targetHost, since: time.Now(), err: refused})
	if got := ts.down[key].since; !got.Equal(first) {
		t.Errorf("down since %s, want the first failure's %s", got, first)
	}
	other := "https://10.0.0.2:6443"
	err := ts.stillConnecting(key, &Target{Host: other, since: time.Now()}, time.Now())
	if !IsUnreachable(err, other) || IsUnreachable(err, targetHost) {
		t.Errorf("a connection to %s must count for that host only: %v", other, err)
	}
}

// A target known not to answer gives its worker back without waiting; one
// that is ready is used, known down or not.
func TestWaitReadyForATargetKnownDown(t *testing.T) {
	key := targetKey{kubeconfig: "k"}
	ts := &Set{down: map[targetKey]downState{key: {since: time.Now(), err: errors.New("refused")}}}
	connecting := &Target{Host: targetHost, since: time.Now(), ready: make(chan struct{})}
	if err := ts.waitReady(context.Background(), key, connecting); !IsUnreachable(err, targetHost) {
		t.Errorf("a target connecting again after a failure: %v, want unreachable", err)
	}
	ready := &Target{Host: targetHost, since: time.Now(), ready: make(chan struct{})}
	close(ready.ready)
	if err := ts.waitReady(context.Background(), key, ready); err != nil {
		t.Errorf("a ready target: %v", err)
	}
}
