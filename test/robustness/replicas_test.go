package robustness_test

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
)

// replica is one operator process of a shard, as a Deployment's pod would
// be: restarted when it exits, unless a fault holds it down.
type replica struct {
	name  string
	shard string
	log   string // the log file's path
	op    operatortest.Operator
	mu    sync.Mutex
	sess  *gexec.Session
	held  bool  // killed by a fault, to be restarted by it
	exits int   // exits of its own (a lost lease), restarted
	since int64 // the log's size when the process started
}

// startReplicas starts perShard replicas of shards a and b, and a supervisor
// that restarts a replica that exits by itself.
func (r *run) startReplicas(binary string, cfg *rest.Config, environ []string, perShard int) {
	GinkgoHelper()
	sources := []string{"--source", "waves=" + testdata("waves"), "--source", "member=" + testdata("waves"),
		"--source", "kust=" + testdata("kust"), "--source", "shop=" + testdata("shop"), "--source", "crds=" + testdata("crds"),
		"--source", sourceProbe + "=" + testdata("probe")}
	for _, shard := range []string{"a", "b"} {
		for i := range perShard {
			name := fmt.Sprintf("%s-%d", shard, i)
			log, err := os.OpenFile(r.logPath(name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(log.Close)
			// Each replica keeps its Lease identity across its restarts, as
			// a pod keeps its name (the chart's POD_NAME).
			args := append([]string{"--operator-name", r.operator, "--shard", shard, "--leader-elect",
				"--leader-election-namespace", operatorNamespace, "--leader-election-identity", name, "--watch-namespaces", r.ns,
				"--component-sets=" + strconv.FormatBool(shard == "a"), "--otlp-endpoint", r.spans.server.URL, "--trace-sample-ratio", "1"}, sources...)
			rep := &replica{name: name, shard: shard, log: r.logPath(name), op: operatortest.Operator{Binary: binary, Config: cfg, Dir: GinkgoT().TempDir(),
				Args: args, Env: environ, Out: log}}
			Expect(rep.start()).To(Succeed())
			r.replicas = append(r.replicas, rep)
		}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go r.supervise(stop, done)
	DeferCleanup(func() {
		close(stop)
		<-done
		for _, rep := range r.replicas {
			rep.stop()
		}
	})
}

// supervise restarts every replica that exited by itself, until stop.
func (r *run) supervise(stop, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		for _, rep := range r.replicas {
			if code, exited := rep.exitedByItself(); exited {
				r.note("replica %s exited by itself (code %d): restarted; its log ended:\n%s", rep.name, code, tail(r.logPath(rep.name), 3))
				r.stats.count("replica exits", 1)
				if err := rep.start(); err != nil {
					r.note("restarting replica %s: %v", rep.name, err)
				}
			}
		}
	}
}

func (rep *replica) start() error {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	if info, err := os.Stat(rep.log); err == nil {
		rep.since = info.Size()
	}
	sess, err := rep.op.Start()
	if err != nil {
		return err
	}
	rep.sess, rep.held = sess, false
	return nil
}

// exitedByItself tells whether the process ended without a fault.
func (rep *replica) exitedByItself() (int, bool) {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	if rep.held || rep.sess == nil || rep.sess.ExitCode() == -1 {
		return 0, false
	}
	rep.exits++
	return rep.sess.ExitCode(), true
}

// kill sends SIGKILL, waits until the process is gone and holds it down.
func (rep *replica) kill() {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	rep.held = true
	if rep.sess != nil {
		rep.sess.Kill().Wait(10 * time.Second)
	}
}

func (rep *replica) stop() {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	rep.held = true
	if rep.sess != nil {
		rep.sess.Terminate().Wait(10 * time.Second)
		rep.sess.Kill().Wait(5 * time.Second)
	}
}

// Log lines that say a replica leads its shard, and that it has looked at
// every Component it found then (package catchup).
const (
	leadsLine    = `"msg":"Successfully acquired lease"`
	caughtUpLine = `"msg":"caught up: looked at every object found at the start"`
)

// leaderState says whether the running process leads its shard and, if it
// does, whether it has caught up since.
func (rep *replica) leaderState() (leads, caughtUp bool) {
	rep.mu.Lock()
	running, since := rep.sess != nil && rep.sess.ExitCode() == -1, rep.since
	rep.mu.Unlock()
	if !running {
		return false, false
	}
	f, err := os.Open(rep.log)
	if err != nil {
		return false, false
	}
	defer f.Close()
	if _, err := f.Seek(since, 0); err != nil {
		return false, false
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return false, false
	}
	text := string(data)
	at := strings.Index(text, leadsLine)
	if at < 0 {
		return false, false
	}
	return true, strings.Contains(text[at:], caughtUpLine)
}

// leaderOf is the replica that leads shard, or the shard's first replica
// when none does (a handover under way).
func (r *run) leaderOf(shard string) *replica {
	var first *replica
	for _, rep := range r.replicas {
		if rep.shard != shard {
			continue
		}
		if first == nil {
			first = rep
		}
		if leads, _ := rep.leaderState(); leads {
			return rep
		}
	}
	return first
}

// notCaughtUp says which shard has no leader, or a leader that has not
// looked at every Component since it took the lead: until then a Ready
// status may be what the replica before it saw, not what is.
func (r *run) notCaughtUp() []string {
	leads, caughtUp := map[string]string{}, map[string]bool{}
	for _, rep := range r.replicas {
		if l, c := rep.leaderState(); l {
			leads[rep.shard], caughtUp[rep.shard] = rep.name, c
		}
	}
	var out []string
	for _, shard := range []string{"a", "b"} {
		switch name, ok := leads[shard]; {
		case !ok:
			out = append(out, "shard "+shard+": no replica leads it")
		case !caughtUp[shard]:
			out = append(out, "shard "+shard+": its leader "+name+" has not looked at every Component yet")
		}
	}
	return out
}

// rss is the resident memory of the running process in KiB (0 when it
// does not run).
func (rep *replica) rss() int {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	if rep.sess == nil || rep.sess.ExitCode() != -1 {
		return 0
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", rep.sess.Command.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == "VmRSS:" {
			kib, _ := strconv.Atoi(fields[1])
			return kib
		}
	}
	return 0
}

// tail is the last n lines of the file at path.
func tail(path string, n int) string {
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
