// Command peers is wavekit's benchmark against the tool users would pick
// instead: wavekit's reference operator and Flux helm-controller, each on a
// fresh local cluster (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and kwok Nodes, made by `wavekit cluster create`), install,
// upgrade, idle and delete the same R releases of one service chart, and the
// bench measures the wall time to the last release Ready, the API requests
// each tool sends (the API server's audit log), and the controller's CPU
// seconds and peak RSS (/proc).
//
// Run it with `make bench-peers` from the repository's root; see README.md
// in this directory for what it measures and how.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// options are what a run is asked to do.
type options struct {
	repoRoot   string        // the wavekit repository (the main module)
	releases   int           // R
	idle       time.Duration // length of the idle window
	settle     time.Duration // pause after each scenario, counted in it
	tools      []string      // which tools run, in order
	resultsDir string        // where results.jsonl and the table go
	workDir    string        // binaries, chart repository, logs of this run
	keep       bool          // keep the clusters after the run
}

func main() {
	opts, err := parseOptions()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, opts); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func parseOptions() (options, error) {
	releases := 100
	if os.Getenv("BENCH_LARGE") == "1" {
		releases = 1000
	}
	if v := os.Getenv("BENCH_RELEASES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return options{}, fmt.Errorf("BENCH_RELEASES=%q: want a positive number", v)
		}
		releases = n
	}
	idle := 5 * time.Minute
	if v := os.Getenv("BENCH_IDLE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return options{}, fmt.Errorf("BENCH_IDLE=%q: %w", v, err)
		}
		idle = d
	}
	o := options{releases: releases, idle: idle, settle: 15 * time.Second}
	tools := "wavekit,helm-controller"
	if v := os.Getenv("BENCH_TOOLS"); v != "" {
		tools = v
	}
	flag.StringVar(&o.repoRoot, "repo", "../../..", "the wavekit repository")
	flag.IntVar(&o.releases, "releases", o.releases, "releases per tool (R)")
	flag.DurationVar(&o.idle, "idle", o.idle, "length of the idle window")
	flag.StringVar(&tools, "tools", tools, "tools to run, comma-separated: wavekit, helm-controller, and the CLI baselines helm and wavekit-cli")
	flag.StringVar(&o.resultsDir, "results", "results", "directory of results.jsonl")
	flag.StringVar(&o.workDir, "work", "", "directory of this run's binaries, repository and logs (default: a new temporary directory)")
	flag.BoolVar(&o.keep, "keep", false, "keep the clusters after the run (wavekit cluster delete --name bench-TOOL removes them)")
	flag.Parse()
	o.tools = strings.Split(tools, ",")
	for _, t := range o.tools {
		if _, ok := toolsByName[t]; !ok {
			return o, fmt.Errorf("unknown tool %q: want wavekit, helm-controller, helm or wavekit-cli", t)
		}
	}
	root, err := filepath.Abs(o.repoRoot)
	if err != nil {
		return o, err
	}
	o.repoRoot = root
	if o.workDir == "" {
		if o.workDir, err = os.MkdirTemp("", "bench-peers-"); err != nil {
			return o, err
		}
	}
	return o, nil
}

// run builds what the run needs, runs every tool on a cluster of its own,
// and prints and records the results.
func run(ctx context.Context, opts options) error {
	start := time.Now()
	bins, err := buildAll(ctx, opts)
	if err != nil {
		return err
	}
	repo, err := serveChartRepository(opts.repoRoot, opts.workDir, bins.helm)
	if err != nil {
		return err
	}
	defer repo.close()
	machine := describeMachine()
	var results []result
	for _, name := range opts.tools {
		rs, err := runTool(ctx, opts, bins, repo, toolsByName[name])
		results = append(results, rs...)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	for i := range results {
		results[i].Machine = machine
		results[i].Started = start.UTC().Format(time.RFC3339)
	}
	if err := writeResults(opts.resultsDir, results); err != nil {
		return err
	}
	fmt.Println()
	fmt.Print(markdownTable(results))
	fmt.Printf("\nR = %d, idle %s, %s; raw results appended to %s\n", opts.releases, opts.idle, machine.String(), filepath.Join(opts.resultsDir, resultsFile))
	return nil
}
