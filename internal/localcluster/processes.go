package localcluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Running returns the recorded processes that still run the command the
// cluster started (a process id the system gave to another program since
// does not count).
func (c *Cluster) Running(s *State) []ProcessRecord {
	var running []ProcessRecord
	for _, p := range s.Processes {
		if c.owns(p) {
			running = append(running, p)
		}
	}
	return running
}

// owns reports whether process p runs and is a part of this cluster: every
// part's command line names a file of the cluster's directory.
func (c *Cluster) owns(p ProcessRecord) bool {
	if p.PID <= 0 || !alive(p.PID) {
		return false
	}
	cmdline, err := commandLine(p.PID)
	return err == nil && strings.Contains(cmdline, c.Dir+string(os.PathSeparator))
}

// alive reports whether pid is a process that has not exited (a zombie has).
func alive(pid int) bool {
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// The state follows the command name in parentheses: "pid (comm) S ...".
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
			return stat[i+2] != 'Z'
		}
	}
	return syscall.Kill(pid, 0) == nil
}

// commandLine returns the command line of pid: from /proc where there is
// one, else from ps.
func commandLine(pid int) (string, error) {
	if data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil {
		return string(bytes.ReplaceAll(data, []byte{0}, []byte{' '})), nil
	}
	out, err := exec.Command("ps", "-o", "command=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return "", fmt.Errorf("reading the command line of process %d: %w", pid, err)
	}
	return string(out), nil
}

// stopProcess sends p SIGTERM, and SIGKILL after grace, and waits until it
// has exited.
func stopProcess(p ProcessRecord, grace time.Duration) error {
	if err := syscall.Kill(p.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stopping %s (pid %d): %w", p.Name, p.PID, err)
	}
	if waitExit(p.PID, grace) {
		return nil
	}
	if err := syscall.Kill(p.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("killing %s (pid %d): %w", p.Name, p.PID, err)
	}
	if waitExit(p.PID, grace) {
		return nil
	}
	return fmt.Errorf("%s (pid %d) has not exited %s after SIGKILL", p.Name, p.PID, grace)
}

// waitExit polls until pid has exited or timeout passed.
func waitExit(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return !alive(pid)
}
