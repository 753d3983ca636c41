package rewatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
)

// These tests drive the wrapper with a scripted ListerWatcher: what it
// does with the answers it gets. test/reliability runs it against a real
// kube-apiserver that is killed and started again.

func cm(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

func list(rv string, items ...*corev1.ConfigMap) *corev1.ConfigMapList {
	out := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
	for _, item := range items {
		out.Items = append(out.Items, *item)
	}
	return out
}

var refused = &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api/v1/configmaps", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}

// script is a ListerWatcher that answers from queues and records the
// options of each call.
type script struct {
	mu      sync.Mutex
	watches []func() (watch.Interface, error)
	lists   []func() (runtime.Object, error)
	watched []metav1.ListOptions
	listed  int
}

func (s *script) ListWithContext(_ context.Context, _ metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listed++
	next := s.lists[0]
	s.lists = s.lists[1:]
	return next()
}

func (s *script) WatchWithContext(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watched = append(s.watched, opts)
	next := s.watches[0]
	s.watches = s.watches[1:]
	return next()
}

func (s *script) List(opts metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), opts)
}

func (s *script) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), opts)
}

func (s *script) resourceVersions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, opts := range s.watched {
		out = append(out, opts.ResourceVersion)
	}
	return out
}

func answer(w watch.Interface) func() (watch.Interface, error) {
	return func() (watch.Interface, error) { return w, nil }
}

func fail(err error) func() (watch.Interface, error) {
	return func() (watch.Interface, error) { return nil, err }
}

// receive reads n events from w, failing after a few seconds.
func receive(t *testing.T, w watch.Interface, n int) []watch.Event {
	t.Helper()
	var out []watch.Event
	for len(out) < n {
		select {
		case e, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch closed after %v", out)
			}
			out = append(out, e)
		case <-time.After(5 * time.Second):
			t.Fatalf("no event after %v", out)
		}
	}
	return out
}

func describe(events []watch.Event) []string {
	var out []string
	for _, e := range events {
		obj := e.Object.(*corev1.ConfigMap)
		out = append(out, fmt.Sprintf("%s %s@%s", e.Type, obj.Name, obj.ResourceVersion))
	}
	return out
}

func TestWatchWaitsForTheServerAndResumesFromTheLastVersion(t *testing.T) {
	first, second := watch.NewFake(), watch.NewFake()
	s := &script{watches: []func() (watch.Interface, error){
		fail(refused), fail(apierrors.NewTooManyRequests("storage is (re)initializing", 1)), answer(first),
		fail(refused), answer(second),
	}}
	l := Wrap(s, &corev1.ConfigMap{}, "test-resume", "ConfigMap")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	timeout := int64(300)
	w, err := l.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: "10", TimeoutSeconds: &timeout})
	if err != nil {
		t.Fatalf("a refused and a 429 watch are tried again, not returned: %v", err)
	}
	go func() {
		first.Add(cm("a", "11"))
		first.Stop() // the server went away: closed long before the reflector's time
		second.Modify(cm("a", "12"))
	}()
	got := describe(receive(t, w, 2))
	if fmt.Sprint(got) != "[ADDED a@11 MODIFIED a@12]" {
		t.Fatalf("events: %v", got)
	}
	if rvs := s.resourceVersions(); fmt.Sprint(rvs) != "[10 10 10 11 11]" {
		t.Fatalf("resource versions watched from: %v", rvs)
	}
	if lost := Lost("test-resume"); len(lost) != 0 {
		t.Fatalf("still lost: %v", lost)
	}
	w.Stop()
	if _, open := <-w.ResultChan(); open {
		t.Fatal("the watch did not close when stopped")
	}
}

func TestTooOldIsRelistedInPlace(t *testing.T) {
	first, second := watch.NewFake(), watch.NewFake()
	s := &script{
		watches: []func() (watch.Interface, error){answer(first), answer(second)},
		lists: []func() (runtime.Object, error){
			func() (runtime.Object, error) { return list("20", cm("b", "18"), cm("c", "5"), cm("d", "19")), nil },
		},
	}
	store := toolscache.NewStore(toolscache.MetaNamespaceKeyFunc)
	for _, obj := range []*corev1.ConfigMap{cm("a", "3"), cm("b", "4"), cm("c", "5")} {
		if err := store.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	l := Wrap(s, &corev1.ConfigMap{}, "test-relist", "ConfigMap")
	l.SetStore(store)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := l.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: "5"})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		first.Error(&apierrors.NewResourceExpired("too old resource version: 5 (17)").ErrStatus)
		second.Modify(cm("d", "21"))
	}()
	events := receive(t, w, 5)
	got := describe(events)
	want := "[MODIFIED b@18 ADDED d@19 DELETED a@3 BOOKMARK @20 MODIFIED d@21]"
	if fmt.Sprint(got) != want {
		t.Fatalf("events:\n got %v\nwant %s", got, want)
	}
	if rvs := s.resourceVersions(); fmt.Sprint(rvs) != "[5 20]" {
		t.Fatalf("resource versions watched from: %v", rvs)
	}
}

func TestAnErrorTheServerAnsweredEndsTheWatchForTheReflector(t *testing.T) {
	first := watch.NewFake()
	s := &script{watches: []func() (watch.Interface, error){answer(first)}}
	l := Wrap(s, &corev1.ConfigMap{}, "test-error", "ConfigMap")
	w, err := l.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	go first.Error(&apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no")).ErrStatus)
	e := receive(t, w, 1)[0]
	if e.Type != watch.Error || !apierrors.IsForbidden(apierrors.FromObject(e.Object)) {
		t.Fatalf("event %v %v", e.Type, e.Object)
	}
	if _, open := <-w.ResultChan(); open {
		t.Fatal("the watch goes on after an error for the reflector")
	}
	if _, err := Wrap(&script{watches: []func() (watch.Interface, error){fail(apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no")))}},
		&corev1.ConfigMap{}, "test-error", "ConfigMap").WatchWithContext(context.Background(), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("a 403 is the reflector's to handle: %v", err)
	}
}

func TestAway(t *testing.T) {
	for _, tc := range []struct {
		err  error
		away bool
	}{
		{refused, true},
		{fmt.Errorf("unexpected error when reading response body: %w", &net.OpError{Op: "read", Err: syscall.ECONNRESET}), true},
		{io.ErrUnexpectedEOF, true},
		{apierrors.NewTooManyRequests("storage is (re)initializing", 3), true},
		{apierrors.NewServiceUnavailable("not ready"), true},
		{apierrors.NewTimeoutError("etcd", 1), true},
		{apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "x", errors.New("no")), false},
		{apierrors.NewNotFound(schema.GroupResource{Resource: "widgets"}, ""), false},
		{apierrors.NewInternalError(errors.New("boom")), false},
		{context.Canceled, false},
	} {
		if got := away(tc.err); got != tc.away {
			t.Errorf("away(%v) = %v, want %v", tc.err, got, tc.away)
		}
	}
}

func TestConfigDropsRetryAfterOnlyForTheWrappersRequests(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer server.Close()
	client, err := rest.HTTPClientFor(Config(&rest.Config{Host: server.URL}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ctx  context.Context
		want string
	}{{own(context.Background()), ""}, {context.Background(), "5"}} {
		req, _ := http.NewRequestWithContext(tc.ctx, http.MethodGet, server.URL+"/api/v1/configmaps?watch=true", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Retry-After"); got != tc.want {
			t.Errorf("Retry-After %q, want %q", got, tc.want)
		}
	}
}

func TestAStreamedListIsTheReflectorsUntilItEnds(t *testing.T) {
	cut, listed, after := watch.NewFake(), watch.NewFake(), watch.NewFake()
	s := &script{watches: []func() (watch.Interface, error){answer(cut), answer(listed), answer(after)}}
	l := Wrap(s, &corev1.ConfigMap{}, "test-list", "ConfigMap")
	send := true
	list := metav1.ListOptions{SendInitialEvents: &send, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}

	w, err := l.WatchWithContext(context.Background(), list)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		cut.Add(cm("a", "3"))
		cut.Stop() // lost before the list ended: the reflector lists again
	}()
	receive(t, w, 1)
	if _, open := <-w.ResultChan(); open {
		t.Fatal("a list cut short was resumed, not left to the reflector")
	}

	w, err = l.WatchWithContext(context.Background(), list)
	if err != nil {
		t.Fatal(err)
	}
	end := cm("", "7")
	end.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	go func() {
		listed.Add(cm("a", "3"))
		listed.Action(watch.Bookmark, end)
		listed.Stop() // lost after the list: resumed as a plain watch
		after.Modify(cm("a", "8"))
	}()
	if got := describe(receive(t, w, 3)); fmt.Sprint(got) != "[ADDED a@3 BOOKMARK @7 MODIFIED a@8]" {
		t.Fatalf("events: %v", got)
	}
	w.Stop()
	s.mu.Lock()
	resumed := s.watched[2]
	s.mu.Unlock()
	if resumed.SendInitialEvents != nil || resumed.ResourceVersionMatch != "" || resumed.ResourceVersion != "7" {
		t.Fatalf("resumed with %+v", resumed)
	}
}

func TestALostWatchIsNotReadyAndItsReconnectIsMeasured(t *testing.T) {
	const cluster = "test-metrics"
	asked, back := make(chan struct{}), make(chan struct{})
	s := &script{watches: []func() (watch.Interface, error){
		fail(refused),
		func() (watch.Interface, error) { close(asked); <-back; return watch.NewFake(), nil },
	}}
	l := Wrap(s, &corev1.ConfigMap{}, cluster, "ConfigMap")
	ctx, cancel := context.WithCancel(context.Background())
	opened := make(chan error, 1)
	go func() { _, err := l.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: "1"}); opened <- err }()

	<-asked // refused once: lost until it is answered
	if err := Ready(cluster)(nil); err == nil || !strings.Contains(err.Error(), "ConfigMap") {
		t.Fatalf("/readyz while the watch is lost: %v", err)
	}
	if got := testutil.ToFloat64(lostNow.WithLabelValues(cluster)); got != 1 {
		t.Fatalf("wavekit_watches_lost %v, want 1", got)
	}
	close(back)
	if err := <-opened; err != nil {
		t.Fatal(err)
	}
	if err := Ready(cluster)(nil); err != nil {
		t.Fatalf("/readyz once the watch is back: %v", err)
	}
	if got := testutil.ToFloat64(lostNow.WithLabelValues(cluster)); got != 0 {
		t.Fatalf("wavekit_watches_lost %v, want 0", got)
	}
	// At least the pace's first wait (100 ms) passed between the loss and the answer.
	if got := testutil.ToFloat64(lastReconnect.WithLabelValues(cluster, "ConfigMap")); got < firstTry.Seconds() {
		t.Fatalf("wavekit_watch_last_reconnect_seconds %v, want at least %v", got, firstTry.Seconds())
	}
	if got := testutil.CollectAndCount(reconnects, "wavekit_watch_reconnect_seconds"); got == 0 {
		t.Fatal("no reconnect observed")
	}

	cancel() // the informer stops: its metrics go, and a stopped watch does not read as a silent one
	deadline := time.Now().Add(5 * time.Second)
	for seriesOf(lastReconnect, cluster) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := seriesOf(lastReconnect, cluster); n != 0 {
		t.Fatalf("%d wavekit_watch_last_reconnect_seconds series left after the informer stopped", n)
	}
}

// seriesOf counts the series of c labelled with cluster.
func seriesOf(c prometheus.Collector, cluster string) int {
	ch := make(chan prometheus.Metric)
	go func() { c.Collect(ch); close(ch) }()
	n := 0
	for m := range ch {
		var out dto.Metric
		if err := m.Write(&out); err != nil {
			continue
		}
		for _, l := range out.GetLabel() {
			if l.GetName() == "cluster" && l.GetValue() == cluster {
				n++
			}
		}
	}
	return n
}

// TestCachedObjectsCountsWhatTheStoresHold: wavekit_cached_objects is the
// sum, by cluster and resource, of what the stores of the wrapped informers
// hold, and the series goes when they stop.
func TestCachedObjectsCountsWhatTheStoresHold(t *testing.T) {
	const cluster = "test-cached"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, items := range [][]*corev1.ConfigMap{{cm("a", "1"), cm("b", "1")}, {cm("c", "1")}} {
		l := Wrap(&script{}, &corev1.ConfigMap{}, cluster, "ConfigMap")
		store := toolscache.NewStore(toolscache.MetaNamespaceKeyFunc)
		l.SetStore(store) // as Informers does with its informer's
		l.stopWith(ctx)   // as its informer's first list does
		for _, item := range items {
			if err := store.Add(item); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := cachedSample(t, cluster, "ConfigMap"); got != 3 {
		t.Fatalf("wavekit_cached_objects{resource=ConfigMap} %v, want 3 (2 and 1 in two caches)", got)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for seriesOf(newCachedObjects(), cluster) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := seriesOf(newCachedObjects(), cluster); n != 0 {
		t.Fatalf("%d wavekit_cached_objects series left after the informers stopped", n)
	}
}

// cachedSample is wavekit_cached_objects of cluster and resource (-1: none).
func cachedSample(t *testing.T, cluster, resource string) float64 {
	t.Helper()
	ch := make(chan prometheus.Metric)
	go func() { newCachedObjects().Collect(ch); close(ch) }()
	found := -1.0
	for m := range ch {
		var out dto.Metric
		if err := m.Write(&out); err != nil {
			t.Fatal(err)
		}
		labels := map[string]string{}
		for _, l := range out.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["cluster"] == cluster && labels["resource"] == resource {
			found = out.GetGauge().GetValue()
		}
	}
	return found
}
