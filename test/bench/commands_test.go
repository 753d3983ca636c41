package bench_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// builds are the commands the benchmarks run: the package to build and the
// module directory, relative to the repository root, to build it in.
var builds = map[string]struct{ dir, pkg string }{
	"component-operator": {".", "./cmd/component-operator"},
	"wavekit":            {".", "./cmd/wavekit"},
	"helm":               {".", "helm.sh/helm/v3/cmd/helm"},
	"helm4":              {"hack/helm4", "helm.sh/helm/v4/cmd/helm"},
	"kubectl":            {"hack/kubectl", "."},
	"kapp":               {"hack/kapp", "carvel.dev/kapp/cmd/kapp"},
}

var (
	buildMu  sync.Mutex
	buildDir string
	binaries = map[string]string{}
)

// binary builds the named command the first time it is asked for and
// returns the path of its executable.
func binary(b *testing.B, name string) string {
	b.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if path, ok := binaries[name]; ok {
		return path
	}
	if buildDir == "" {
		dir, err := os.MkdirTemp("", "wavekit-bench-")
		if err != nil {
			b.Fatal(err)
		}
		buildDir = dir
	}
	spec := builds[name]
	path := filepath.Join(buildDir, name)
	// As released: static, without debug information.
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", path, spec.pkg)
	cmd.Dir = filepath.Join(testcluster.ModuleRoot(), spec.dir)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building %s in %s: %v\n%s", spec.pkg, spec.dir, err, out)
	}
	binaries[name] = path
	return path
}

// run is one finished command: its wall time and peak RSS.
type run struct {
	wall   time.Duration
	rssMiB float64
}

// timed runs a built command to its end and fails the benchmark, with the
// command's output, unless it exits 0.
func timed(b *testing.B, name string, args ...string) run {
	b.Helper()
	cmd := exec.Command(binary(b, name), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out.String())
	}
	return run{wall: wall, rssMiB: maxRSSMiB(cmd.ProcessState)}
}

// timedIn is timed with the command run in dir, with env added to the
// environment.
func timedIn(b *testing.B, dir string, env []string, name string, args ...string) run {
	b.Helper()
	cmd := exec.Command(binary(b, name), args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v in %s: %v\n%s", name, args, dir, err, out.String())
	}
	return run{wall: time.Since(start), rssMiB: maxRSSMiB(cmd.ProcessState)}
}

// maxRSSMiB is the peak resident set size of a process that has exited.
// It is at least the peak RSS this process had reached when it started the
// command (Go starts a child sharing its memory until exec, and Linux keeps
// that mark across exec): a figure below it cannot be told.
func maxRSSMiB(state *os.ProcessState) float64 {
	usage, ok := state.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return float64(usage.Maxrss) / 1024 // Linux reports KiB
}
