package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is the unit of utime and stime in /proc/PID/stat (USER_HZ,
// 100 on Linux).
const clockTicks = 100

// controller is a tool's controller, run as a child process with its
// output in a log file.
type controller struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// startController starts binary with args and env added to this process's
// environment, logging into logPath.
func startController(name, binary, logPath string, args, env []string) (*controller, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	c := &controller{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(c.done)
	}()
	progress("started %s (pid %d), log %s", name, cmd.Process.Pid, logPath)
	return c, nil
}

func (c *controller) pid() int { return c.cmd.Process.Pid }

// exited returns an error if the controller is no longer running.
func (c *controller) exited() error {
	if c == nil {
		return nil // a CLI's run has no controller
	}
	select {
	case <-c.done:
		return fmt.Errorf("%s exited; see %s", c.name, c.log)
	default:
		return nil
	}
}

// stop sends the controller SIGTERM, and SIGKILL after 30 s.
func (c *controller) stop() {
	if c == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// cpuSeconds is the user and system CPU time process pid has used so far.
func cpuSeconds(pid int) (float64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name in parentheses may hold spaces; fields follow it.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	fields := strings.Fields(string(data[i+1:]))
	// fields[0] is the state (field 3), so utime (14) and stime (15) are 11 and 12.
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields))
	}
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", pid, fields[11], fields[12])
	}
	return (utime + stime) / clockTicks, nil
}

// peakRSSMiB is process pid's peak resident set size (VmHWM) in MiB.
func peakRSSMiB(pid int) (float64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kib, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kib / 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmHWM", pid)
}

// machineTicks is what /proc/stat says all cores did so far, in clock
// ticks: busy (user, nice, system, interrupts, steal) and in all.
func machineTicks() (busy, total float64) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	first, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(first) // cpu user nice system idle iowait irq softirq steal …
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0, 0
	}
	for i, f := range fields[1:9] {
		v, _ := strconv.ParseFloat(f, 64)
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total
}

// busyShare is the share of all cores' time between two machineTicks
// readings that was busy.
func busyShare(busy0, total0, busy1, total1 float64) float64 {
	if total1 <= total0 {
		return 0
	}
	return (busy1 - busy0) / (total1 - total0)
}
