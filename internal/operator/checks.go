package operator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
)

// CacheSynced is a readiness check: ready once c has synced every informer
// it watches, the one of reconciled included. Before that, a process
// cannot act on what it serves, and a rolling update should not count it
// as available. Asking for that informer itself closes the window in
// which its controller has not registered it yet and no informer at all
// reads as synced.
func CacheSynced(c cache.Cache, reconciled client.Object) healthz.Checker {
	return func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), time.Second)
		defer cancel()
		informer, err := c.GetInformer(ctx, reconciled, cache.BlockUntilSynced(false))
		if err != nil {
			return fmt.Errorf("the informer of %T: %w", reconciled, err)
		}
		if !toolscache.WaitFor(ctx, "", informer.HasSyncedChecker()) || !c.WaitForCacheSync(ctx) {
			return errors.New("the informer caches have not synced yet")
		}
		return nil
	}
}
