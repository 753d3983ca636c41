package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

const resultsFile = "results.jsonl"

// result is one tool's figures for one scenario: a line of results.jsonl.
type result struct {
	Tool       string        `json:"tool"`
	Version    string        `json:"version"`
	Scenario   string        `json:"scenario"`
	Releases   int           `json:"releases"`
	Seconds    float64       `json:"seconds"` // to the last release Ready (gone), or the idle window's length
	Requests   requestCounts `json:"requests"`
	UserAgents []string      `json:"userAgents"`
	// CPUSeconds is the controller's user and system CPU in the window
	// (the scenario and the settle time after it).
	CPUSeconds          float64 `json:"cpuSeconds"`
	APIServerCPUSeconds float64 `json:"apiServerCpuSeconds"`
	PeakRSSMiB          float64 `json:"peakRssMiB"` // the controller's VmHWM at the window's end
	WindowSeconds       float64 `json:"windowSeconds"`
	// MachineBusy is the share of all cores' time that was busy during the
	// scenario (every process: the tool, the cluster, the bench).
	MachineBusy float64 `json:"machineBusy"`
	// LastResourceSeconds and LastDeploymentSeconds split Seconds: to the
	// last resource Ready, to the last Deployment rolled out; MaxLagSeconds
	// is the longest a release's resource became Ready after its Deployment.
	LastResourceSeconds   float64 `json:"lastResourceSeconds,omitempty"`
	LastDeploymentSeconds float64 `json:"lastDeploymentSeconds,omitempty"`
	MaxLagSeconds         float64 `json:"maxLagSeconds,omitempty"`
	LoadBefore            string  `json:"loadBefore"`
	LoadAfter             string  `json:"loadAfter"`
	Machine               machine `json:"machine"`
	Started               string  `json:"started"`
	Seed                  string  `json:"seed"`
}

// machine says where a run ran.
type machine struct {
	CPU    string `json:"cpu"`
	Cores  int    `json:"cores"`
	Memory string `json:"memory"`
	Go     string `json:"go"`
	OS     string `json:"os"`
}

func (m machine) String() string {
	return fmt.Sprintf("%s, %d cores, %s, %s %s", m.CPU, m.Cores, m.Memory, m.OS, m.Go)
}

// describeMachine reads the CPU model and memory from /proc.
func describeMachine() machine {
	m := machine{Cores: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(data)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		first, _, _ := strings.Cut(string(data), "\n")
		var kib int64
		if _, err := fmt.Sscanf(strings.TrimPrefix(first, "MemTotal:"), "%d", &kib); err == nil {
			m.Memory = fmt.Sprintf("%d GiB", kib>>20)
		}
	}
	return m
}

// results turns a tool's windows and request counts into results.
func (r *toolRun) results(bins binaries, windows []window, counts []requestCounts, agents []string) []result {
	var out []result
	for i, w := range windows {
		out = append(out, result{
			Tool: r.tool.name(), Version: r.tool.version(bins), Scenario: w.scenario, Releases: len(r.names),
			Seconds: w.done.Sub(w.start).Seconds(), Requests: counts[i], UserAgents: agents,
			CPUSeconds: w.cpu, APIServerCPUSeconds: w.apiCPU, PeakRSSMiB: w.peakRSS,
			WindowSeconds: w.end.Sub(w.start).Seconds(), MachineBusy: w.machineBusy,
			LastResourceSeconds: w.lastResource, LastDeploymentSeconds: w.lastDeployment, MaxLagSeconds: w.maxLag, LoadBefore: w.loadBefore, LoadAfter: w.now,
			Seed: "none: the inputs are fixed",
		})
	}
	return out
}

// writeResults appends results as JSON lines to dir/results.jsonl.
func writeResults(dir string, results []result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, resultsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			_ = f.Close()
			return err
		}
	}
	return f.Close()
}
