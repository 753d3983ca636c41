package receiver

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// lateCache is a cache whose Receiver of path arrives at the lists'
// arrival-th call, as a status update reaches a replica's informer a
// moment after it was written.
type lateCache struct {
	client.Reader
	path    string
	arrival int32
	lists   atomic.Int32
}

func (c *lateCache) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	n := c.lists.Add(1)
	var o client.ListOptions
	o.ApplyOptions(opts)
	if n < c.arrival || o.FieldSelector == nil || o.FieldSelector.String() != pathIndex+"="+c.path {
		return nil
	}
	list.(*v1alpha1.ReceiverList).Items = []v1alpha1.Receiver{{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "github"}}}
	return nil
}

// TestFindWaitsForAPathThatArrives: a path its status shows a moment before
// the cache does is found, not refused; an unknown one is refused after the
// settle bound, and at once when the request is gone.
func TestFindWaitsForAPathThatArrives(t *testing.T) {
	ctx := context.Background()
	cache := &lateCache{path: "/hook/abc", arrival: 3}
	s := &clusterSource{cache: cache, settle: time.Minute}
	r, err := s.find(ctx, "/hook/abc")
	if err != nil || r == nil || r.Name != "github" {
		t.Fatalf("find of a path that arrives at the third look = %v, %v; want Receiver apps/github", r, err)
	}
	if got := cache.lists.Load(); got != 3 {
		t.Errorf("looked %d times, want 3", got)
	}

	s.settle = 3 * pathInterval
	if r, err := s.find(ctx, "/hook/other"); err != nil || r != nil {
		t.Errorf("find of an unknown path = %v, %v; want nil, nil", r, err)
	}

	gone, cancel := context.WithCancel(ctx)
	cancel()
	if r, err := s.find(gone, "/hook/other"); err == nil || r != nil {
		t.Errorf("find after the request ended = %v, %v; want its context's error", r, err)
	}
}
