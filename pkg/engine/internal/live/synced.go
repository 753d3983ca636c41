package live

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Synced is the LiveReader of an informer cache. The first read of a
// kind starts its informer and waits for the first list to arrive, notified
// when it does: the cache's own Get polls for that every 100 ms, which made
// every first read of a kind (every new target's first apply) wait about
// 100 ms for a list that took a few.
type Synced struct {
	cache cache.Cache

	mu     sync.Mutex
	synced map[schema.GroupVersionKind]bool
}

func NewSynced(c cache.Cache) *Synced {
	return &Synced{cache: c, synced: map[schema.GroupVersionKind]bool{}}
}

func (s *Synced) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := s.awaitInformer(ctx, obj); err != nil {
		return err
	}
	return s.cache.Get(ctx, key, obj, opts...)
}

// awaitInformer returns once the informer of obj's kind holds its first list.
func (s *Synced) awaitInformer(ctx context.Context, obj client.Object) error {
	gvk := obj.GetObjectKind().GroupVersionKind()
	s.mu.Lock()
	synced := s.synced[gvk]
	s.mu.Unlock()
	if synced || gvk.Empty() {
		return nil
	}
	informer, err := s.cache.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
	if err != nil {
		return err
	}
	if !toolscache.WaitFor(ctx, "", informer.HasSyncedChecker()) {
		return fmt.Errorf("waiting for the %s informer to list: %w", gvk.Kind, context.Cause(ctx))
	}
	s.mu.Lock()
	s.synced[gvk] = true
	s.mu.Unlock()
	return nil
}
