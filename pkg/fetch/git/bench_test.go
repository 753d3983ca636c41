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
		tree, heap, elapsed := measuredGet(b, srv.HTTPURL("large"))
		written, _ := os.ReadDir(tree.Dir)
		b.ReportMetric(float64(files), "files")
		b.ReportMetric(float64(len(written)), "dirs")
		b.ReportMetric(elapsed.Seconds(), "s/fetch")
		b.ReportMetric(float64(heap)/(1<<20), "MiB-heap-above-base")
		b.ReportMetric(float64(peakRSS())/(1<<10), "MiB-peak-RSS")
	}
}

// BenchmarkLargeObjects fetches a commit of two files of zeros just under
// the default limit of one object (DefaultMaxObjectSize), one a delta of
// the other: what go-git holds in memory to index a pack and write its
// files, for the largest objects a fetch takes. It reports the peak Go
// heap in use above what was in use before.
func BenchmarkLargeObjects(b *testing.B) {
	srv, err := gitserver.Start(b.TempDir(), gitserver.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	size := git.DefaultMaxObjectSize - 1
	if err := srv.NewZerosRepo("zeros", size); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		_, heap, elapsed := measuredGet(b, srv.HTTPURL("zeros"))
		b.ReportMetric(float64(size)/(1<<20), "MiB-object")
		b.ReportMetric(elapsed.Seconds(), "s/fetch")
		b.ReportMetric(float64(heap)/(1<<20), "MiB-heap-above-base")
	}
}

// measuredGet fetches url's default branch into a new cache, with the
// peak heap above the base and the time it took.
func measuredGet(b *testing.B, url string) (git.Tree, uint64, time.Duration) {
	cache, err := fetch.NewCache(b.TempDir(), 4<<30)
	if err != nil {
		b.Fatal(err)
	}
	var tree git.Tree
	heap, elapsed := peakHeap(func() { tree, err = git.New(cache).Get(ctx, git.Request{URL: url}) })
	if err != nil {
		b.Fatal(err)
	}
	return tree, heap, elapsed
}

// peakHeap runs do and returns the peak Go heap in use while it ran, above
// what was in use before (sampled every 5 ms), and how long it took.
func peakHeap(do func()) (uint64, time.Duration) {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
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
	do()
	elapsed := time.Since(start)
	close(stop)
	<-done
	return peak.Load() - min(peak.Load(), base.HeapInuse), elapsed
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
