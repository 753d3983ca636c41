package k8sbin

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// APIServer are the binaries of an API server alone (envtest's).
var APIServer = []string{"kube-apiserver", "etcd"}

// Cluster are the binaries a whole cluster runs besides kube-apiserver and
// etcd.
var Cluster = []string{"kube-controller-manager", "kube-scheduler", "kwok"}

// All are the binaries of a whole local cluster.
var All = append(slices.Clone(APIServer), Cluster...)

// EnvVar names the directory of the binaries, as controller-runtime's
// envtest reads it.
const EnvVar = "KUBEBUILDER_ASSETS"

// BuildEstimate is what a first build takes, said before it starts: measured
// at 6 min 20 s on 2 cores with empty Go caches.
const BuildEstimate = "about 7 minutes on 2 cores with empty Go caches, less with more cores or warm caches"

// Check returns an error naming the first of names that dir lacks.
func Check(dir string, names ...string) error {
	for _, name := range names {
		if !isExecutable(filepath.Join(dir, name)) {
			return fmt.Errorf("no %s in %s: hack/control-plane.sh builds it (make control-plane)", name, dir)
		}
	}
	return nil
}

// Dir returns the directory with the binaries: $KUBEBUILDER_ASSETS when set;
// otherwise what hack/control-plane.sh of the wavekit checkout prints (it
// builds them on first use, telling progress what it does, and returns at
// once after that); otherwise, for a binary without its checkout, the newest
// complete build in the script's cache.
func Dir(progress io.Writer) (string, error) {
	if dir := os.Getenv(EnvVar); dir != "" {
		return dir, nil
	}
	script, err := Script()
	if err != nil {
		if dir, ok := cached(); ok {
			return dir, nil
		}
		return "", fmt.Errorf("no local cluster binaries found and %w: run this from a wavekit checkout "+
			"(make control-plane builds them), or set %s to a directory that holds %s", err, EnvVar, strings.Join(All, ", "))
	}
	return Build(script, progress)
}

// Script returns the path of hack/control-plane.sh in the wavekit checkout
// this binary was built from.
func Script() (string, error) {
	root, err := Checkout()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "hack", "control-plane.sh")
	if _, err := os.Stat(script); err != nil {
		return "", fmt.Errorf("the checkout %s has no hack/control-plane.sh: %w", root, err)
	}
	return script, nil
}

// Build runs script and returns the directory it prints. When the binaries
// are missing, it first checks that bash and go are on PATH and says on
// progress what it builds, where, and how long that takes; the script's own
// lines follow as they come.
func Build(script string, progress io.Writer) (string, error) {
	target, err := run(script, nil, "--dir")
	if err != nil {
		return "", err
	}
	if Check(target, All...) == nil {
		return target, nil
	}
	for _, tool := range []string{"bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("building the local cluster's binaries needs the Go toolchain and bash, and %s is not on PATH: "+
				"install Go 1.26 or newer (https://go.dev/dl), or give a directory with %s (--binaries or %s)",
				tool, strings.Join(All, ", "), EnvVar)
		}
	}
	fmt.Fprintf(progress, "building %s from the Go module proxy into %s, once: %s\n", strings.Join(All, ", "), target, BuildEstimate)
	return run(script, progress)
}

// run runs script with args and returns the directory it printed; its
// standard error goes to progress when not nil.
func run(script string, progress io.Writer, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if progress != nil {
		cmd.Stderr = io.MultiWriter(&stderr, &linePrefixer{out: progress, prefix: "  "})
	}
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("running %s: %w\n%s", script, err, tail(stderr.String(), 20))
	}
	dir := strings.TrimSpace(stdout.String())
	if dir == "" {
		return "", fmt.Errorf("%s printed no directory", script)
	}
	return dir, nil
}

// CacheRoot is the directory of hack/control-plane.sh's cache: $WAVEKIT_CACHE,
// else the user's cache directory's wavekit.
func CacheRoot() string {
	if dir := os.Getenv("WAVEKIT_CACHE"); dir != "" {
		return dir
	}
	if dir := os.Getenv("XDG_CACHE_HOME"); dir != "" {
		return filepath.Join(dir, "wavekit")
	}
	if dir, err := os.UserHomeDir(); err == nil {
		return filepath.Join(dir, ".cache", "wavekit")
	}
	return filepath.Join(os.TempDir(), "wavekit-cache")
}

// cached finds the newest directory of hack/control-plane.sh's cache that
// holds every binary of the cluster.
func cached() (string, bool) {
	dirs, _ := filepath.Glob(filepath.Join(CacheRoot(), "k8s", "*-etcd*"))
	slices.Sort(dirs)
	for _, dir := range slices.Backward(dirs) {
		if Check(dir, All...) == nil {
			return dir, true
		}
	}
	return "", false
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

// linePrefixer writes every line it is given to out with prefix in front.
type linePrefixer struct {
	out     io.Writer
	prefix  string
	pending []byte
}

func (l *linePrefixer) Write(p []byte) (int, error) {
	l.pending = append(l.pending, p...)
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		if _, err := fmt.Fprintf(l.out, "%s%s\n", l.prefix, l.pending[:i]); err != nil {
			return 0, err
		}
		l.pending = l.pending[i+1:]
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
