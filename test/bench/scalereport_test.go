package bench_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// scaleResult is what one case of BenchmarkScaleCost measured; the JSON of
// WAVEKIT_SCALE_OUT, which docs/benchmarks.md's tables and plot are made
// from. Memory is per replica, in MiB.
type scaleResult struct {
	Case       string `json:"case"`
	Components int    `json:"components"`
	Shards     int    `json:"shards"`
	Deployment bool   `json:"deployment"`
	// OperatorArgs are WAVEKIT_SCALE_OPERATOR_ARGS, flags added to the
	// operator's (e.g. --priority-queue=false).
	OperatorArgs string `json:"operatorArgs,omitempty"`
	// Empty is the operator before the first Component, Installed 30 s
	// after all were Ready, Idled after the restart, the catch-up and a
	// minute of idling.
	Empty     memory `json:"empty"`
	Installed memory `json:"installed"`
	Idled     memory `json:"idled"`
	// PeakMiB is each replica's peak RSS over both of its processes.
	PeakMiB       []float64      `json:"peakMiB"`
	Install       phase          `json:"install"`
	Restart       restartResult  `json:"restart"`
	Idle          phase          `json:"idle"`
	QuietChange   changeResult   `json:"quietChange"`
	Resync        phase          `json:"resync"`
	ResyncChanges []resyncChange `json:"resyncChanges"`
	// Move is the shard move of a sharded case (moveShard).
	Move   *moveResult `json:"move,omitempty"`
	Delete phase       `json:"delete"`
}

// memory is each replica's resident memory: all of it, and anonymous
// (heap and stacks, without the mapped binary).
type memory struct {
	RSSMiB  []float64 `json:"rssMiB"`
	AnonMiB []float64 `json:"anonMiB"`
}

// phase is what the replicas did over one phase: its time, their CPU, the
// requests they sent and the reconciles they finished, and the machine's
// load average at its end.
type phase struct {
	Seconds    float64       `json:"seconds"`
	CPU        []float64     `json:"cpuSeconds"`
	Requests   requestCounts `json:"requests"`
	Reconciles float64       `json:"reconciles"`
	Load       float64       `json:"load1"`
}

type restartResult struct {
	// ReadySeconds from the start of the new processes until all report
	// ready (caches synced); HandledSeconds until the change made then is
	// Ready; ChangeSeconds from the change itself.
	ReadySeconds   float64 `json:"readySeconds"`
	ChangeSeconds  float64 `json:"changeSeconds"`
	HandledSeconds float64 `json:"handledSeconds"`
	// CatchUp lasts until every Component was passed once.
	CatchUp phase `json:"catchUp"`
}

type changeResult struct {
	Seconds float64 `json:"seconds"`
	Phase   phase   `json:"phase"`
}

type resyncChange struct {
	Seconds      float64 `json:"seconds"`
	DuringResync bool    `json:"duringResync"`
}

// mark is where the replicas stood at one moment.
type mark struct {
	at         time.Time
	cpu        []time.Duration
	requests   requestCounts
	reconciles float64
}

func (s *scaleRun) mark() mark {
	m := mark{at: time.Now(), requests: requestCounts{}, reconciles: s.reconciles()}
	for _, r := range s.replicas {
		m.cpu = append(m.cpu, sampleProcess(r.op.cmd.Process.Pid).cpu)
		m.requests.add(r.proxy.snapshot())
	}
	return m
}

// since is the phase from m until now.
func (s *scaleRun) since(m mark) phase {
	now := s.mark()
	p := phase{Seconds: now.at.Sub(m.at).Seconds(), Requests: now.requests.minus(m.requests),
		Reconciles: now.reconciles - m.reconciles, Load: loadAverage()}
	for i := range now.cpu {
		p.CPU = append(p.CPU, (now.cpu[i] - m.cpu[i]).Seconds())
	}
	return p
}

// memory samples each replica's memory.
func (s *scaleRun) memory() memory {
	var m memory
	for _, r := range s.replicas {
		f := sampleProcess(r.op.cmd.Process.Pid)
		m.RSSMiB = append(m.RSSMiB, f.rssKiB/1024)
		m.AnonMiB = append(m.AnonMiB, f.anonKiB/1024)
	}
	return m
}

// reconciles sums the replicas' finished reconciles of Components (a
// replica that does not answer counts 0).
func (s *scaleRun) reconciles() float64 {
	sum := 0.0
	for _, r := range s.replicas {
		n, _ := scrapeSum(r.metrics, "controller_runtime_reconcile_total", `controller="`+s.ns+`.wavekit.dev"`)
		sum += n
	}
	return sum
}

// busy sums, over the replicas, the Components waiting in their queues
// and the reconciles running.
func (s *scaleRun) busy() float64 {
	sum := 0.0
	for _, r := range s.replicas {
		depth, err := scrapeSum(r.metrics, "workqueue_depth", `name="`+s.ns+`.wavekit.dev"`)
		started, err2 := scrapeSum(r.metrics, "wavekit_reconciles_started_total", "")
		finished, err3 := scrapeSum(r.metrics, "wavekit_reconciles_total", "")
		if err != nil || err2 != nil || err3 != nil {
			return 1
		}
		sum += depth + started - finished
	}
	return sum
}

// report logs the run's table, reports its main figures and writes its
// JSON to WAVEKIT_SCALE_OUT.
func (s *scaleRun) report() {
	r := s.result
	n := float64(r.Components)
	per := func(mib []float64) float64 { return sum(mib) * 1024 / n }
	s.b.ReportMetric(r.Install.Seconds, "s-to-ready")
	s.b.ReportMetric(per(r.Idled.RSSMiB), "settled-RSS-KiB/component")
	s.b.ReportMetric(slices.Max(r.PeakMiB), "max-replica-peak-RSS-MiB")
	s.b.ReportMetric(float64(r.Idle.Requests.nonWatch())/r.Idle.Seconds*60, "idle-requests/min")
	s.b.ReportMetric(sum(r.Resync.CPU)/r.Resync.Reconciles*1000, "resync-CPU-ms/pass")
	s.b.ReportMetric(float64(r.Resync.Requests.nonWatch()), "resync-requests")
	s.b.ReportMetric(medianOf(r.ResyncChanges), "change-during-resync-median-s")
	s.b.ReportMetric(r.Restart.HandledSeconds, "restart-change-handled-s")
	s.b.ReportMetric(float64(r.Restart.CatchUp.Requests.writes()), "restart-writes")
	if r.Move != nil {
		s.b.ReportMetric(r.Move.Seconds, "move-s-to-ready")
		s.b.ReportMetric(r.Move.WritesPerObject, "move-writes/object")
	}
	s.b.Log("\n" + r.table())
	if path := os.Getenv("WAVEKIT_SCALE_OUT"); path != "" {
		if err := writeJSON(path, r); err != nil {
			s.b.Fatal(err)
		}
	}
}

// table is the run as Markdown rows.
func (r scaleResult) table() string {
	var out strings.Builder
	fmt.Fprintf(&out, "| %s | figure |\n|---|---|\n", r.Case)
	row := func(name, format string, args ...any) {
		fmt.Fprintf(&out, "| %s | "+format+" |\n", append([]any{name}, args...)...)
	}
	row("install: until all Ready", "%.1f s, CPU %.1f s (load %.2f)", r.Install.Seconds, sum(r.Install.CPU), r.Install.Load)
	row("install: requests", "%s", r.Install.Requests)
	row("RSS: empty / installed / after restart and idle", "%.0f / %.0f / %.0f MiB (anon %.0f)", sum(r.Empty.RSSMiB), sum(r.Installed.RSSMiB), sum(r.Idled.RSSMiB), sum(r.Idled.AnonMiB))
	row("peak RSS per replica", "%.0f MiB", r.PeakMiB)
	row("restart: ready / change handled / caught up", "%.1f / %.1f / %.1f s (change itself %.2f s)", r.Restart.ReadySeconds, r.Restart.HandledSeconds, r.Restart.CatchUp.Seconds, r.Restart.ChangeSeconds)
	row("restart: catch-up CPU, requests", "%.1f s; %s", sum(r.Restart.CatchUp.CPU), r.Restart.CatchUp.Requests)
	row("idle minute: requests, CPU", "%s; %.2f s", r.Idle.Requests, sum(r.Idle.CPU))
	row("one change, quiet", "%.2f s; %s", r.QuietChange.Seconds, r.QuietChange.Phase.Requests)
	row("resync: passes, time, CPU", "%.0f in %.1f s, %.1f s CPU (load %.2f)", r.Resync.Reconciles, r.Resync.Seconds, sum(r.Resync.CPU), r.Resync.Load)
	row("resync: requests", "%s", r.Resync.Requests)
	row("changes during resync", "%v", r.ResyncChanges)
	out.WriteString(r.moveRow())
	row("delete all", "%.1f s, CPU %.1f s; %s", r.Delete.Seconds, sum(r.Delete.CPU), r.Delete.Requests)
	return out.String()
}

func sum(values []float64) float64 {
	total := 0.0
	for _, v := range values {
		total += v
	}
	return total
}

// medianOf is the median latency of the changes.
func medianOf(changes []resyncChange) float64 {
	if len(changes) == 0 {
		return 0
	}
	seconds := make([]float64, len(changes))
	for i, c := range changes {
		seconds[i] = c.Seconds
	}
	slices.Sort(seconds)
	return seconds[len(seconds)/2]
}
