package catchup

import (
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"
)

func key(name string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: name} }

func isDone(t *Tracker) bool {
	select {
	case <-t.Done():
		return true
	default:
		return false
	}
}

func TestCatchUpEndsWhenEveryListedKeyWasSeen(t *testing.T) {
	var lines []string
	log := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{})
	tr := New("test-seen", log)
	clock := time.Unix(100, 0)
	tr.now = func() time.Time { return clock }
	tr.Start()
	tr.Seen(key("a")) // looked at before the list was taken
	tr.Expect([]types.NamespacedName{key("a"), key("b"), key("c")})
	if got := tr.Pending(); got != 2 {
		t.Fatalf("pending after Expect: %d, want 2 (a was seen)", got)
	}
	if got := testutil.ToFloat64(pending.WithLabelValues("test-seen")); got != 2 {
		t.Fatalf("gauge: %v, want 2", got)
	}
	tr.Seen(key("b"))
	tr.Seen(key("x")) // not listed: created after the start
	if isDone(tr) {
		t.Fatal("done while c was not seen")
	}
	clock = clock.Add(1500 * time.Millisecond)
	tr.Seen(key("c"))
	if !isDone(tr) || tr.Pending() != 0 || testutil.ToFloat64(pending.WithLabelValues("test-seen")) != 0 {
		t.Fatalf("not done after every key was seen: pending %d", tr.Pending())
	}
	if len(lines) != 1 || lines[0] != `"level"=0 "msg"="caught up: looked at every object found at the start" "controller"="test-seen" "after"="1.5s" "listed"=3` {
		t.Fatalf("log lines: %q", lines)
	}
	tr.Seen(key("c"))
	tr.Expect([]types.NamespacedName{key("z")})
	if len(lines) != 1 || tr.Pending() != 0 {
		t.Fatal("a second catch-up after the first ended")
	}
}

func TestCatchUpOfNothingEndsAtOnce(t *testing.T) {
	tr := New("test-empty", logr.Discard())
	tr.Start()
	tr.Expect(nil)
	if !isDone(tr) {
		t.Fatal("not done with nothing to look at")
	}
}

func TestALookBeforeStartCounts(t *testing.T) {
	tr := New("test-start", logr.Discard())
	tr.Seen(key("a")) // a worker that started before the list was taken
	tr.Start()
	tr.Expect([]types.NamespacedName{key("a")})
	if !isDone(tr) {
		t.Fatal("a look before Start did not count")
	}
}
