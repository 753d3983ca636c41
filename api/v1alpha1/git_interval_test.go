package v1alpha1_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// TestEveryPassLooksAgain holds the relation that makes one look per
// interval: a Component that reads a repository comes back after longer
// than a look at it serves (GitLookAge), so each pass looks again unless
// another Component of the repository did since; and it comes back within
// a tenth more than the interval, and never later than its own requeue.
func TestEveryPassLooksAgain(t *testing.T) {
	for _, interval := range []time.Duration{time.Second, 4 * time.Second, time.Minute, v1alpha1.DefaultGitInterval, 24 * time.Hour} {
		for i := range 1000 {
			c := &v1alpha1.Component{}
			c.UID = types.UID(fmt.Sprintf("%08x-uid-%d", i*2654435761, i))
			c.Spec.Git = &v1alpha1.GitSource{URL: "https://git.example.com/r", Interval: &metav1.Duration{Duration: interval}}
			requeue := c.GetRequeueInterval()
			if look := v1alpha1.GitLookAge(interval); requeue <= look {
				t.Fatalf("interval %s, UID %s: back after %s, which a look of %s serves: the pass would not look", interval, c.UID, requeue, look)
			}
			if requeue > interval+interval/10 {
				t.Fatalf("interval %s, UID %s: back after %s, more than a tenth later", interval, c.UID, requeue)
			}
			c.Spec.Intervals.Requeue = &metav1.Duration{Duration: interval + interval/20}
			if got := c.GetRequeueInterval(); got > interval+interval/20 {
				t.Fatalf("interval %s, UID %s: back after %s, later than spec.intervals.requeue", interval, c.UID, got)
			}
		}
	}
	if got := (&v1alpha1.Component{}).GetRequeueInterval(); got != 0 {
		t.Errorf("a Component of no repository comes back after %s, want the operator's default (0)", got)
	}
}
