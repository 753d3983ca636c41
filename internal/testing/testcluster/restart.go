//go:build linux

package testcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// restartTimeout bounds RestartAPIServer when ctx has no deadline, and Stop.
const restartTimeout = time.Minute

// apiserverProcess is a kube-apiserver that RestartAPIServer started; Stop
// stops it, since envtest only knows the process it started itself.
type apiserverProcess struct {
	cmd    *exec.Cmd
	done   chan struct{} // closed when cmd.Wait returned
	err    error         // cmd.Wait's error, set before done is closed
	stderr *tailWriter
}

// RestartAPIServer stops the test kube-apiserver as envtest stops it
// (SIGTERM, and SIGKILL if it has not exited after the APIServer's
// StopTimeout: with watches open it would wait for them up to its 60s
// request timeout), waits until it has exited (etcd keeps running), calls
// down (if not nil) while it is away, starts the same binary again with the
// same arguments and environment (so the same port, certificates and etcd),
// and waits until its /readyz answers OK. It gives up with an error when ctx
// ends (after a minute when ctx has no deadline). Stop stops the new process.
// Linux only: the process that envtest started is found in /proc.
func (e *Env) RestartAPIServer(ctx context.Context, down func()) error {
	return e.RestartAPIServerWith(ctx, RestartOptions{}, down)
}

// RestartOptions say how RestartAPIServerWith stops kube-apiserver.
type RestartOptions struct {
	// Kill stops it with SIGKILL at once, as a crash or the OOM killer
	// would: its connections are reset and no client is told to go away.
	// Without it, SIGTERM: a graceful stop that ends the watches first.
	Kill bool
}

// RestartAPIServerWith is RestartAPIServer, stopping kube-apiserver as opts
// say.
func (e *Env) RestartAPIServerWith(ctx context.Context, opts RestartOptions, down func()) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, restartTimeout)
		defer cancel()
	}
	path, args, environ, err := e.stopAPIServer(ctx, opts.Kill)
	if err != nil {
		return err
	}
	if down != nil {
		down()
	}
	for {
		p, err := e.startAPIServer(path, args, environ)
		if err != nil {
			return err
		}
		err = e.waitReady(ctx, p)
		// A killed server's connections may hold its port for a moment
		// (the kernel closes them after the process): start again.
		if err == nil || !p.exited() || !strings.Contains(p.stderr.String(), "address already in use") || ctx.Err() != nil {
			return err
		}
		e.apiserver = nil
		time.Sleep(200 * time.Millisecond)
	}
}

// startAPIServer starts kube-apiserver at path with args and environ, as
// envtest does, and makes it the one Stop stops.
func (e *Env) startAPIServer(path string, args, environ []string) (*apiserverProcess, error) {
	server := e.environment.ControlPlane.APIServer
	p := &apiserverProcess{cmd: exec.Command(path, args...), done: make(chan struct{}), stderr: &tailWriter{}}
	p.cmd.Env = environ
	p.cmd.Stdout = server.Out
	p.cmd.Stderr = p.stderr
	if server.Err != nil {
		p.cmd.Stderr = io.MultiWriter(server.Err, p.stderr)
	}
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // as envtest does
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("restarting kube-apiserver %s: %w", path, err)
	}
	e.apiserver = p
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// APIServerPID is the process id of the running kube-apiserver: the one
// RestartAPIServer started last, else envtest's. Linux only: envtest's is
// found in /proc.
func (e *Env) APIServerPID() (int, error) {
	if p := e.apiserver; p != nil {
		return p.cmd.Process.Pid, nil
	}
	pid, _, err := findAPIServer(e.environment.ControlPlane.APIServer.CertDir)
	return pid, err
}

// stopAPIServer stops the running kube-apiserver (the one RestartAPIServer
// started last, else envtest's), with SIGKILL at once if kill, and returns
// how it was started.
func (e *Env) stopAPIServer(ctx context.Context, kill bool) (path string, args, environ []string, err error) {
	grace := e.environment.ControlPlane.APIServer.StopTimeout
	if kill {
		grace = -1
	}
	if p := e.apiserver; p != nil {
		e.apiserver = nil
		if err := p.stop(ctx, grace); err != nil {
			return "", nil, nil, err
		}
		return p.cmd.Path, p.cmd.Args[1:], p.cmd.Env, nil
	}
	certDir := e.environment.ControlPlane.APIServer.CertDir
	pid, start, err := findAPIServer(certDir)
	if err != nil {
		return "", nil, nil, err
	}
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	if path, err = os.Readlink(filepath.Join(dir, "exe")); err != nil {
		return "", nil, nil, fmt.Errorf("reading the binary of kube-apiserver (pid %d): %w", pid, err)
	}
	cmdline, err := readNullSeparated(filepath.Join(dir, "cmdline"))
	if err != nil {
		return "", nil, nil, fmt.Errorf("reading the arguments of kube-apiserver (pid %d): %w", pid, err)
	}
	if environ, err = readNullSeparated(filepath.Join(dir, "environ")); err != nil {
		return "", nil, nil, fmt.Errorf("reading the environment of kube-apiserver (pid %d): %w", pid, err)
	}
	// A pidfd on Linux: signals cannot reach another process that reuses the pid.
	process, err := os.FindProcess(pid)
	if err != nil {
		return "", nil, nil, fmt.Errorf("finding kube-apiserver (pid %d): %w", pid, err)
	}
	defer process.Release()
	// envtest's own goroutine waits for (reaps) its child: watch /proc instead.
	exited := func() bool {
		_, state, started, err := procStat(pid) // gone, reused or a zombie
		return err != nil || started != start || state == 'Z'
	}
	if err := terminate(ctx, process, grace, exited); err != nil {
		return "", nil, nil, err
	}
	return strings.TrimSuffix(path, " (deleted)"), cmdline[1:], environ, nil
}

// terminate sends SIGTERM to process, SIGKILL if it has not exited after
// grace (20s if 0, at once if negative), and waits until exited reports
// true or ctx ends.
func terminate(ctx context.Context, process *os.Process, grace time.Duration, exited func() bool) error {
	if grace == 0 {
		grace = 20 * time.Second
	}
	poll := func(ctx context.Context) error {
		return wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(context.Context) (bool, error) {
			return exited(), nil
		})
	}
	if grace > 0 {
		if err := process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("stopping kube-apiserver (pid %d): %w", process.Pid, err)
		}
		graceCtx, cancel := context.WithTimeout(ctx, grace)
		defer cancel()
		if poll(graceCtx) == nil {
			return nil
		}
	}
	if err := process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing kube-apiserver (pid %d): %w", process.Pid, err)
	}
	if err := poll(ctx); err != nil {
		return fmt.Errorf("kube-apiserver (pid %d) did not exit after SIGTERM and SIGKILL: %w", process.Pid, err)
	}
	return nil
}

// findAPIServer finds the kube-apiserver child of this process that uses
// certDir and returns its pid and start time (against pid reuse).
func findAPIServer(certDir string) (pid int, start uint64, err error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0, fmt.Errorf("looking for kube-apiserver: %w", err)
	}
	for _, entry := range entries {
		pid, err := strconv.Atoi(entry.Name())
		if err != nil {
			continue
		}
		ppid, _, start, err := procStat(pid)
		if err != nil || ppid != os.Getpid() {
			continue
		}
		exe, _ := os.Readlink(filepath.Join("/proc", entry.Name(), "exe"))
		if filepath.Base(strings.TrimSuffix(exe, " (deleted)")) != "kube-apiserver" {
			continue
		}
		cmdline, _ := readNullSeparated(filepath.Join("/proc", entry.Name(), "cmdline"))
		for _, arg := range cmdline {
			if arg == "--cert-dir="+certDir {
				return pid, start, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("no kube-apiserver with --cert-dir=%s is a child of this process (pid %d)", certDir, os.Getpid())
}

// procStat returns the parent pid, state and start time of a process from
// /proc/<pid>/stat.
func procStat(pid int) (ppid int, state byte, start uint64, err error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, 0, err
	}
	// pid (comm) state ppid ... starttime is field 22; comm may hold spaces.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, 0, fmt.Errorf("parsing /proc/%d/stat: %q", pid, data)
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 20 {
		return 0, 0, 0, fmt.Errorf("parsing /proc/%d/stat: %q", pid, data)
	}
	if ppid, err = strconv.Atoi(fields[1]); err != nil {
		return 0, 0, 0, fmt.Errorf("parsing /proc/%d/stat: %w", pid, err)
	}
	if start, err = strconv.ParseUint(fields[19], 10, 64); err != nil {
		return 0, 0, 0, fmt.Errorf("parsing /proc/%d/stat: %w", pid, err)
	}
	return ppid, fields[0][0], start, nil
}

func readNullSeparated(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	list := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	if len(list) == 0 || list[0] == "" {
		return nil, fmt.Errorf("%s is empty", path)
	}
	return list, nil
}

// waitReady polls /readyz through e.Config until it answers OK.
func (e *Env) waitReady(ctx context.Context, p *apiserverProcess) error {
	cfg := rest.CopyConfig(e.Config)
	cfg.Timeout = 5 * time.Second
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating a client for %s: %w", cfg.Host, err)
	}
	var last error
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		select {
		case <-p.done:
			return false, fmt.Errorf("kube-apiserver (pid %d) exited: %v: %s", p.cmd.Process.Pid, p.err, p.stderr)
		default:
		}
		_, last = dc.RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the restarted kube-apiserver at %s/readyz (last answer: %v): %w", cfg.Host, last, err)
	}
	return nil
}

// stop stops the process (see terminate) and waits until it has exited.
func (p *apiserverProcess) stop(ctx context.Context, grace time.Duration) error {
	return terminate(ctx, p.cmd.Process, grace, p.exited)
}

// exited tells whether the process has exited.
func (p *apiserverProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stopRestarted stops the kube-apiserver that RestartAPIServer started, if any.
func (e *Env) stopRestarted() error {
	p := e.apiserver
	if p == nil {
		return nil
	}
	e.apiserver = nil
	ctx, cancel := context.WithTimeout(context.Background(), restartTimeout)
	defer cancel()
	return p.stop(ctx, e.environment.ControlPlane.APIServer.StopTimeout)
}

// tailWriter keeps the last 4 KiB written to it (a process's stderr, for
// error messages).
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	const keep = 4 << 10
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > keep {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-keep:]...)
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
