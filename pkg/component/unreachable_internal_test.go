package component

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
)

// targetHost is the Host of the target's rest.Config.
const targetHost = "https://10.0.0.1:6443"

func TestUnreachableOutcome(t *testing.T) {
	// A request to the target whose connection was refused, as client-go
	// returns it (package targets tells the other kinds of failure apart).
	down := fmt.Errorf("applying apps/Deployment shop/web: %w", &url.Error{Op: "Patch",
		URL: targetHost + "/apis/apps/v1/namespaces/shop/deployments/web",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}})
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
