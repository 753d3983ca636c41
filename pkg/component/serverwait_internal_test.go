package component

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
)

func TestAPassThatFailedBecauseItsServerWasAwayWaitsForIt(t *testing.T) {
	var readyz sync.Mutex
	readyz.Lock() // the server is away until unlocked
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !readyz.TryLock() {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		readyz.Unlock()
		fmt.Fprint(w, "ok")
	}))
	defer server.Close()
	queued := make(chan types.NamespacedName, 10)
	w := &serverWaits{operator: "test-serverwait", log: logr.Discard(), retry: 10 * time.Second,
		hostOf: func(types.NamespacedName) string { return server.URL },
		configOf: func(host string) *rest.Config {
			return map[bool]*rest.Config{true: {Host: server.URL}}[host == targets.HostKey(server.URL)]
		},
		enqueue: func(_ context.Context, id types.NamespacedName) { queued <- id },
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.start(ctx)

	refused := &url.Error{Op: "Put", URL: server.URL + "/apis/wavekit.dev/v1alpha1/namespaces/a/components/x/status",
		Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}
	waiting := func() float64 { return testutil.ToFloat64(awaitingServer.WithLabelValues("test-serverwait")) }
	for _, tc := range []struct {
		name string
		err  error
		away bool
	}{
		{"a request to the server, refused", refused, true},
		{"a response cut short", fmt.Errorf("writing status: unexpected error when reading response body: %w", io.ErrUnexpectedEOF), true},
		{"a 503", apierrors.NewServiceUnavailable("etcd"), true},
		{"a 504", apierrors.NewTimeoutError("etcd", 1), true},
		{"a chart repository that does not answer", &url.Error{Op: "Get", URL: "https://charts.example/index.yaml",
			Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}, false},
		{"a 403", apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "x", errors.New("no")), false},
		{"a refusal of the render", errors.New("template: line 3: bad"), false},
	} {
		id := types.NamespacedName{Namespace: "a", Name: tc.name}
		res, err := w.settle(id, ctrl.Result{}, tc.err)
		switch {
		case tc.away && (err != nil || res.RequeueAfter != 10*time.Second):
			t.Errorf("%s: %v, %v; want a requeue at the retry interval without an error", tc.name, res, err)
		case !tc.away && err == nil:
			t.Errorf("%s: the error was not returned (to controller-runtime's backoff)", tc.name)
		}
	}
	if got := waiting(); got != 4 {
		t.Fatalf("%v components wait, want 4", got)
	}
	if _, err := w.settle(types.NamespacedName{Namespace: "a", Name: "a 503"}, ctrl.Result{}, nil); err != nil || waiting() != 3 {
		t.Fatalf("a pass that succeeded still waits: %v, %v", err, waiting())
	}
	select {
	case id := <-queued:
		t.Fatalf("%s queued while the server is away", id)
	case <-time.After(3 * probeInterval):
	}
	readyz.Unlock()
	got := map[string]bool{}
	for range 3 {
		select {
		case id := <-queued:
			got[id.Name] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("not queued at the server's return: %v", got)
		}
	}
	if waiting() != 0 {
		t.Fatalf("%v still wait", waiting())
	}
}
