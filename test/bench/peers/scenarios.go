package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const (
	firstMessage  = "hello"
	secondMessage = "hello-again"
	// writers is how many requests the bench sends at once to create,
	// change or delete the releases.
	writers = 16
)

// window is a scenario's span: the bench acted at start, the last release
// met the goal at done, and requests until end (done + settle) count.
type window struct {
	scenario    string
	start, done time.Time
	end         time.Time
	cpu, apiCPU float64 // controller and kube-apiserver CPU seconds in the window
	// machineBusy is the share of all cores' time that was busy from start
	// to done: near 1, the machine, not a tool, set the pace.
	machineBusy float64
	peakRSS     float64
	// seconds to the last resource and the last Deployment, and the
	// longest lag of a resource behind its Deployment (install, upgrade)
	lastResource, lastDeployment, maxLag float64
	loadBefore, now                      string
}

// run is one tool on its cluster during a run.
type toolRun struct {
	opts    options
	tool    tool
	cluster *cluster
	ctrl    *controller
	repo    *chartRepository
	tracker *tracker
	names   []string
}

// runTool runs every scenario of tool on a fresh cluster and returns a
// result per scenario.
func runTool(ctx context.Context, opts options, bins binaries, repo *chartRepository, t tool) ([]result, error) {
	c, err := createCluster(ctx, opts, bins, "bench-"+t.name(), []string{t.user()})
	if err != nil {
		return nil, err
	}
	if !opts.keep {
		defer c.delete()
	}
	if err := c.ensureNamespace(ctx, benchNamespace); err != nil {
		return nil, err
	}
	r := &toolRun{opts: opts, tool: t, cluster: c, repo: repo}
	for i := range opts.releases {
		r.names = append(r.names, fmt.Sprintf("rel-%04d", i+1))
	}
	started := time.Now()
	if r.ctrl, err = t.start(ctx, c, bins, repo); err != nil {
		return nil, err
	}
	defer r.ctrl.stop()
	if r.tracker, err = newTracker(ctx, c, t.resource()); err != nil {
		return nil, err
	}
	windows, err := r.scenarios(ctx, started)
	if err != nil {
		return nil, err
	}
	counts, agents, err := countRequests(c.auditLog, t.user(), windows)
	if err != nil {
		return nil, err
	}
	return r.results(bins, windows, counts, agents), nil
}

// scenarios runs startup, install, upgrade, idle and delete in order.
func (r *toolRun) scenarios(ctx context.Context, started time.Time) ([]window, error) {
	startup := r.measure("startup", started, func() (time.Time, error) { return started, r.ctrl.exited() })
	windows := []window{startup}
	steps := []struct {
		name string
		act  func(context.Context) (time.Time, error)
	}{
		{"install", func(ctx context.Context) (time.Time, error) {
			return r.converge(ctx, goalReady, firstMessage, r.create)
		}},
		{"upgrade", func(ctx context.Context) (time.Time, error) {
			return r.converge(ctx, goalReady, secondMessage, r.change)
		}},
		{"idle", r.idle},
		{"delete", func(ctx context.Context) (time.Time, error) { return r.converge(ctx, goalGone, "", r.remove) }},
	}
	for _, s := range steps {
		if _, cli := r.tool.(*cliTool); cli && s.name == "idle" {
			continue // nothing runs between commands
		}
		progress("%s: %s, %d releases", r.tool.name(), s.name, len(r.names))
		w := r.measure(s.name, time.Now(), func() (time.Time, error) { return s.act(ctx) })
		if w.done.IsZero() {
			return windows, fmt.Errorf("%s did not finish", s.name)
		}
		progress("%s: %s took %s (controller CPU %.1f s, machine %.0f %% busy)", r.tool.name(), s.name, w.done.Sub(w.start).Round(time.Millisecond), w.cpu, 100*w.machineBusy)
		windows = append(windows, w)
	}
	return windows, nil
}

// measure runs act, waits the settle time after it, and returns its window
// with the CPU both processes used in it; a failed act has a zero done.
func (r *toolRun) measure(scenario string, start time.Time, act func() (time.Time, error)) window {
	w := window{scenario: scenario, start: start, loadBefore: loadAverage()}
	cpu0, _ := r.usage()
	api0, _ := cpuSeconds(r.cluster.apiServerPID())
	busy0, total0 := machineTicks()
	done, err := act()
	busy1, total1 := machineTicks()
	if err != nil {
		progress("%s: %s: %v", r.tool.name(), scenario, err)
		return w
	}
	if scenario != "startup" && scenario != "idle" {
		time.Sleep(r.opts.settle)
	}
	w.done, w.end, w.now = done, time.Now(), loadAverage()
	cpu1, peak := r.usage()
	api1, _ := cpuSeconds(r.cluster.apiServerPID())
	w.cpu, w.apiCPU, w.peakRSS = cpu1-cpu0, api1-api0, peak
	w.machineBusy = busyShare(busy0, total0, busy1, total1)
	if scenario == "install" || scenario == "upgrade" {
		w.lastResource, w.lastDeployment, w.maxLag = r.tracker.spans(r.names, start)
	}
	return w
}

// converge sets the tracker's goal, acts on every release, and waits until
// every release meets the goal; it returns when the last one did.
func (r *toolRun) converge(ctx context.Context, g goal, message string, act func(context.Context, string, string) error) (time.Time, error) {
	r.tracker.setGoal(g, message)
	if err := r.forEach(ctx, func(ctx context.Context, name string) error { return act(ctx, name, message) }); err != nil {
		return time.Time{}, err
	}
	timeout := 10*time.Minute + time.Duration(len(r.names))*3*time.Second
	deadline := time.After(timeout)
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	for {
		if last, ok := r.tracker.done(r.names); ok {
			if g == goalGone {
				return r.waitObjectsGone(ctx, last)
			}
			return last, nil
		}
		select {
		case <-r.tracker.changed:
		case <-tick.C:
			crs, deps := r.tracker.counts()
			progress("%s: %d of %d resources and %d Deployments there", r.tool.name(), crs, len(r.names), deps)
			if err := r.ctrl.exited(); err != nil {
				return time.Time{}, err
			}
		case <-deadline:
			return time.Time{}, fmt.Errorf("not every release got there within %s", timeout)
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}

// usage is the CPU seconds the tool used so far and its peak RSS (MiB):
// its controller's, or the sum and largest of its commands'.
func (r *toolRun) usage() (float64, float64) {
	if cli, ok := r.tool.(*cliTool); ok {
		return cli.runs.usage()
	}
	cpu, _ := cpuSeconds(r.ctrl.pidOrZero())
	peak, _ := peakRSSMiB(r.ctrl.pidOrZero())
	return cpu, peak
}

// forEach calls fn for every release, writers at a time (a CLI's
// commands, cliProcesses at a time).
func (r *toolRun) forEach(ctx context.Context, fn func(context.Context, string) error) error {
	names := make(chan string)
	errs := make(chan error, len(r.names))
	var wg sync.WaitGroup
	parallel := writers
	if _, cli := r.tool.(*cliTool); cli {
		parallel = cliProcesses
	}
	for range parallel {
		wg.Go(func() {
			for n := range names {
				if err := fn(ctx, n); err != nil {
					errs <- fmt.Errorf("%s: %w", n, err)
				}
			}
		})
	}
	for _, n := range r.names {
		names <- n
	}
	close(names)
	wg.Wait()
	close(errs)
	return <-errs // nil when there was none
}

func (r *toolRun) create(ctx context.Context, name, message string) error {
	if cli, ok := r.tool.(*cliTool); ok {
		return cli.act(ctx, "install", name, message, r.repo)
	}
	_, err := r.cluster.dynamic.Resource(r.tool.resource()).Namespace(benchNamespace).
		Create(ctx, r.tool.release(name, message, r.repo), metav1.CreateOptions{})
	return err
}

func (r *toolRun) change(ctx context.Context, name, message string) error {
	if cli, ok := r.tool.(*cliTool); ok {
		return cli.act(ctx, "upgrade", name, message, r.repo)
	}
	patch := fmt.Appendf(nil, `{"spec":{"values":{"message":%q}}}`, message)
	_, err := r.cluster.dynamic.Resource(r.tool.resource()).Namespace(benchNamespace).
		Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

func (r *toolRun) remove(ctx context.Context, name, _ string) error {
	if cli, ok := r.tool.(*cliTool); ok {
		return cli.act(ctx, "delete", name, "", r.repo)
	}
	return r.cluster.dynamic.Resource(r.tool.resource()).Namespace(benchNamespace).Delete(ctx, name, metav1.DeleteOptions{})
}

// idle waits the idle window with every release Ready, and fails if the
// controller exited meanwhile.
func (r *toolRun) idle(ctx context.Context) (time.Time, error) {
	select {
	case <-time.After(r.opts.idle):
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
	return time.Now(), r.ctrl.exited()
}

func (c *controller) pidOrZero() int {
	if c == nil {
		return 0
	}
	return c.pid()
}

// loadAverage is the first three fields of /proc/loadavg.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	fields := strings.Fields(string(data))
	if len(fields) < 3 {
		return ""
	}
	return strings.Join(fields[:3], " ")
}
