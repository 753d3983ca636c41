//go:build linux

package testcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PauseEtcd stops etcd of e (SIGSTOP) for d, or until ctx ends, and lets it
// go on (SIGCONT): its connections stay open and every request to it
// hangs, as when its machine stalls. Linux only, as RestartAPIServer.
func (e *Env) PauseEtcd(ctx context.Context, d time.Duration) error {
	dataDir := e.environment.ControlPlane.Etcd.DataDir
	pid, err := findChild("etcd", func(args []string) bool {
		for _, arg := range args {
			if dataDir != "" && strings.HasSuffix(arg, "="+dataDir) {
				return true
			}
		}
		return false
	})
	if err != nil {
		return err
	}
	return pause(ctx, pid, d)
}

// PauseControllerManager stops the kube-controller-manager this process
// started (SIGSTOP) for d, or until ctx ends, and lets it go on (SIGCONT):
// Jobs, rollouts, the garbage collector and namespaces stall meanwhile. It
// needs e to be the only cluster with controllers of this process.
func (e *Env) PauseControllerManager(ctx context.Context, d time.Duration) error {
	pid, err := findChild("kube-controller-manager", func([]string) bool { return true })
	if err != nil {
		return err
	}
	return pause(ctx, pid, d)
}

// pause sends SIGSTOP to pid, waits d or until ctx ends, and sends SIGCONT.
func pause(ctx context.Context, pid int, d time.Duration) error {
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return fmt.Errorf("stopping pid %d: %w", pid, err)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		return fmt.Errorf("continuing pid %d: %w", pid, err)
	}
	return nil
}

// findChild returns the pid of the only child of this process whose binary
// is named name and whose arguments match.
func findChild(name string, match func(args []string) bool) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("looking for %s: %w", name, err)
	}
	var found []int
	for _, entry := range entries {
		pid, err := strconv.Atoi(entry.Name())
		if err != nil {
			continue
		}
		ppid, state, _, err := procStat(pid)
		if err != nil || ppid != os.Getpid() || state == 'Z' {
			continue
		}
		exe, _ := os.Readlink(filepath.Join("/proc", entry.Name(), "exe"))
		if filepath.Base(strings.TrimSuffix(exe, " (deleted)")) != name {
			continue
		}
		if args, err := readNullSeparated(filepath.Join("/proc", entry.Name(), "cmdline")); err == nil && match(args) {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("%d children of this process (pid %d) are the %s looked for, not one", len(found), os.Getpid(), name)
	}
	return found[0], nil
}
