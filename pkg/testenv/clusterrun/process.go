package clusterrun

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

// Process is a part of the cluster run as a child process, with its output
// appended to a log file.
type Process struct {
	Name    string
	LogPath string

	cmd  *exec.Cmd
	done chan struct{} // closed when cmd.Wait returned
	err  error         // cmd.Wait's error, set before done is closed
}

// StartOptions change how Start runs a process.
type StartOptions struct {
	// Detach runs the process in a session of its own, so that it outlives
	// this one and a Ctrl-C in the terminal does not reach it.
	Detach bool
	// LogName names the log file, LogName.log (default: the binary's name).
	LogName string
}

// Start starts the binary name of directory bin with args and env added to
// this process's environment, its stdout and stderr appended to
// logDir/name.log.
func Start(name, bin, logDir string, args, env []string, opts StartOptions) (*Process, error) {
	logName := name
	if opts.LogName != "" {
		logName = opts.LogName
	}
	logPath := filepath.Join(logDir, logName+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating the log of %s: %w", name, err)
	}
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.Env = append(os.Environ(), env...)
	if opts.Detach {
		cmd.Dir = logDir
		cmd.SysProcAttr = detached()
	}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{Name: name, cmd: cmd, LogPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// Pid is the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited returns an error that says how the process ended and what it
// logged last, or nil while it runs.
func (p *Process) Exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v); the end of %s:\n%s", p.Name, p.err, p.LogPath, Tail(p.LogPath))
	default:
		return nil
	}
}

// Stop sends SIGTERM, and SIGKILL if the process has not exited within
// grace, and waits until it has exited.
func (p *Process) Stop(grace time.Duration) error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stopping %s: %w", p.Name, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing %s: %w", p.Name, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
		return fmt.Errorf("%s (pid %d) has not exited %s after SIGKILL", p.Name, p.cmd.Process.Pid, grace)
	}
}

// tailLines is how much of its log an error about a process quotes.
const tailLines = 20

// Tail returns the last lines of the log at path.
func Tail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(reading %s: %v)", path, err)
	}
	lines := strings.Split(string(bytes.TrimRight(data, "\n")), "\n")
	return strings.Join(lines[max(0, len(lines)-tailLines):], "\n")
}
