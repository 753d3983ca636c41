package engine

import (
	"context"
	"errors"
	"sync"
)

// forEach calls fn for every object with at most limit calls at once and
// returns the errors of all calls joined.
func forEach[T any](ctx context.Context, limit int, objs []T, fn func(context.Context, T) error) error {
	if len(objs) == 1 || limit <= 1 {
		var errs []error
		for _, obj := range objs {
			errs = append(errs, fn(ctx, obj))
		}
		return errors.Join(errs...)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, limit)
	)
	for _, obj := range objs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(ctx, obj); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
