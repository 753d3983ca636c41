package input

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

const (
	// envCache is wavekit's cache directory (the local cluster's builds
	// are kept there too); the charts go under charts/.
	envCache = "WAVEKIT_CACHE"
	// chartCacheBytes bounds the chart cache: past it the charts used
	// least recently go.
	chartCacheBytes = 1 << 30
	// cacheLockFile is the file runs lock the cache with; the cache
	// leaves it alone (it is not one of its entries).
	cacheLockFile = ".lock"
)

// DefaultChartCache is where the CLI keeps the charts it fetches for
// later runs: $WAVEKIT_CACHE/charts, else $XDG_CACHE_HOME/wavekit/charts,
// else ~/.cache/wavekit/charts.
func DefaultChartCache() string {
	if dir := os.Getenv(envCache); dir != "" {
		return filepath.Join(dir, "charts")
	}
	if dir := os.Getenv("XDG_CACHE_HOME"); dir != "" {
		return filepath.Join(dir, "wavekit", "charts")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "wavekit", "charts")
	}
	return filepath.Join(os.TempDir(), "wavekit-charts")
}

// cacheLockWait bounds how long a run waits for another one that holds
// the chart cache (one that finds its charts there holds it for well
// under a second).
var cacheLockWait = 10 * time.Second

// errCacheBusy says another run held the chart cache past cacheLockWait.
var errCacheBusy = errors.New("another wavekit is using it")

// lockCache takes the chart cache in dir for this process (a fetch.Cache
// is used by one process at a time: opening it removes what an
// unfinished fetch left), waiting for another run that holds it, at most
// cacheLockWait (then errCacheBusy); unlock gives it back.
func lockCache(ctx context.Context, dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("chart cache %s: %w", dir, err)
	}
	path := filepath.Join(dir, cacheLockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("chart cache %s: %w", dir, err)
	}
	deadline := time.Now().Add(cacheLockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return func() { _ = f.Close() }, nil // closing releases the lock
		case !errors.Is(err, syscall.EWOULDBLOCK):
			_ = f.Close()
			return nil, fmt.Errorf("chart cache %s: locking %s: %w", dir, path, err)
		case time.Now().After(deadline):
			_ = f.Close()
			return nil, fmt.Errorf("chart cache %s: %w (for over %s)", dir, errCacheBusy, cacheLockWait)
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("chart cache %s: waiting for another wavekit to release it: %w", dir, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
