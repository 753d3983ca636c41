package operator

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// TestRequestMaxAge: a reconcile request no pass has handled makes the
// repository's versions be no older than the request; a handled one, or
// none, leaves the requeue interval.
func TestRequestMaxAge(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	requested := now.Add(-2 * time.Second).Format(time.RFC3339Nano)
	key := "ops.example/reconcile-requested-at"
	for _, tc := range []struct {
		name       string
		annotation string
		handled    string
		want       time.Duration
	}{
		{"no request", "", "", time.Hour},
		{"a handled request", requested, requested, time.Hour},
		{"a new request", requested, "earlier", 2 * time.Second},
		{"a request from a clock ahead", now.Add(time.Minute).Format(time.RFC3339Nano), "", 0},
		{"a request that is not a time", "please", "", 0},
	} {
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{key: tc.annotation}}}
		c.Status.LastHandledReconcileAt = tc.handled
		if got := requestMaxAge(c, "ops.example", time.Hour, now); got != tc.want {
			t.Errorf("%s: requestMaxAge = %s, want %s", tc.name, got, tc.want)
		}
	}
}
