package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// childProcess is a component of the test cluster that Start runs as a
// child process, with its output in a log file.
type childProcess struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed when cmd.Wait returned
	err     error         // cmd.Wait's error, set before done is closed
}

// startProcess starts the binary name of dir bin with args, its stdout and
// stderr appended to logDir/name.log.
func startProcess(name, bin, logDir string, args []string, env []string) (*childProcess, error) {
	logPath := filepath.Join(logDir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("creating the log of %s: %w", name, err)
	}
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &childProcess{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// exited returns an error that says how the process ended and what it
// logged last, or nil while it runs.
func (p *childProcess) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v); the end of %s:\n%s", p.name, p.err, p.logPath, p.tail())
	default:
		return nil
	}
}

// stop sends SIGTERM, and SIGKILL if the process has not exited within
// grace, and waits until it has exited.
func (p *childProcess) stop(grace time.Duration) error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stopping %s: %w", p.name, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing %s: %w", p.name, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
		return fmt.Errorf("%s (pid %d) has not exited %s after SIGKILL", p.name, p.cmd.Process.Pid, grace)
	}
}

// tailLines is how much of its log an error about a process quotes.
const tailLines = 20

// tail returns the last lines of the process's log.
func (p *childProcess) tail() string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(reading %s: %v)", p.logPath, err)
	}
	lines := strings.Split(string(bytes.TrimRight(data, "\n")), "\n")
	return strings.Join(lines[max(0, len(lines)-tailLines):], "\n")
}
