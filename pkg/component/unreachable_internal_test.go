package component

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

	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
)

// timeoutError stands for net/http's TLS handshake timeout, a net.Error of
// an unexported type.
type timeoutError struct{}

func (timeoutError) Error() string   { return "net/http: TLS handshake timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// targetHost is the Host of the target's rest.Config.
const targetHost = "https://10.0.0.1:6443"

// request wraps err as client-go returns a failed request to the target.
func request(err error) error {
	return fmt.Errorf("applying apps/Deployment shop/web: %w",
		&url.Error{Op: "Patch", URL: targetHost + "/apis/apps/v1/namespaces/shop/deployments/web", Err: err})
}

func TestIsTargetUnreachable(t *testing.T) {
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
			if got := IsTargetUnreachable(tc.err, host); got != tc.want {
				t.Errorf("IsTargetUnreachable(%v) = %t, want %t", tc.err, got, tc.want)
			}
		})
	}
}

func TestUnreachableOutcome(t *testing.T) {
	down := request(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
	for _, tc := range []struct {
		name string
		err  error
		in   outcome.Outcome
		want string
	}{
		{"a retried failure", down, outcome.Outcome{Reason: ReasonRetrying, Requeue: time.Minute}, ReasonTargetUnreachable},
		{"a failure with backoff", down, outcome.Outcome{Reason: ReasonError, Err: down}, ReasonTargetUnreachable},
		{"a render error that wraps it is not Stalled", down, outcome.Outcome{Reason: ReasonError, Stalled: true, Requeue: time.Minute}, ReasonTargetUnreachable},
		{"a write loop keeps its reason", down, outcome.Outcome{Reason: ReasonWriteLoop}, ReasonWriteLoop},
		{"another error", errors.New("bad chart"), outcome.Outcome{Reason: ReasonError}, ReasonError},
		{"no target to tell", down, outcome.Outcome{Reason: ReasonError}, ReasonError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host := targetHost
			if tc.name == "no target to tell" {
				host = ""
			}
			got := unreachable(tc.err, tc.in, host)
			if got.Reason != tc.want {
				t.Errorf("reason %s, want %s", got.Reason, tc.want)
			}
			if got.Requeue != tc.in.Requeue || got.Err != tc.in.Err {
				t.Errorf("the retry changed: %+v, was %+v", got, tc.in)
			}
			if wantStalled := tc.in.Stalled && tc.want != ReasonTargetUnreachable; got.Stalled != wantStalled {
				t.Errorf("stalled %t, want %t", got.Stalled, wantStalled)
			}
		})
	}
}
