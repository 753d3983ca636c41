package git_test

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

// BenchmarkLargeRepository fetches and writes out one commit of a
// repository of 30 000 files (about 600 bytes each) served over smart
// HTTP, and reports the time, the peak Go heap in use above what was in use
// before, and the process's peak resident memory.
func BenchmarkLargeRepository(b *testing.B) {
	const files, size = 30_000, 600
	dir := b.TempDir()
	srv, err := gitserver.Start(dir, gitserver.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	if err := srv.NewLargeRepo("large", files, size); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		cache, err := fetch.NewCache(b.TempDir(), 4<<30)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var peak atomic.Uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { // sample the heap while the fetch runs
			defer close(done)
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		}()
		start := time.Now()
		tree, err := git.New(cache).Get(ctx, git.Request{URL: srv.HTTPURL("large")})
		elapsed := time.Since(start)
		close(stop)
		<-done
		if err != nil {
			b.Fatal(err)
		}
		written, _ := os.ReadDir(tree.Dir)
		b.ReportMetric(float64(files), "files")
		b.ReportMetric(float64(len(written)), "dirs")
		b.ReportMetric(elapsed.Seconds(), "s/fetch")
		b.ReportMetric(float64(peak.Load()-min(peak.Load(), base.HeapInuse))/(1<<20), "MiB-heap-above-base")
		b.ReportMetric(float64(peakRSS())/(1<<10), "MiB-peak-RSS")
	}
}

// peakRSS is the process's peak resident set (VmHWM), in KiB.
func peakRSS() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}
