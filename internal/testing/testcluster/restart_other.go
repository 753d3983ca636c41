//go:build !linux

package testcluster

import (
	"context"
	"errors"
	"fmt"
)

// apiserverProcess is only used on Linux.
type apiserverProcess struct{}

// RestartAPIServer is only implemented on Linux (it finds kube-apiserver in /proc).
func (e *Env) RestartAPIServer(context.Context, func()) error {
	return fmt.Errorf("restarting kube-apiserver: %w", errors.ErrUnsupported)
}

// RestartOptions say how RestartAPIServerWith stops kube-apiserver.
type RestartOptions struct {
	// Kill stops it with SIGKILL at once.
	Kill bool
}

// RestartAPIServerWith is only implemented on Linux (it finds kube-apiserver in /proc).
func (e *Env) RestartAPIServerWith(context.Context, RestartOptions, func()) error {
	return fmt.Errorf("restarting kube-apiserver: %w", errors.ErrUnsupported)
}

func (e *Env) stopRestarted() error { return nil }

// APIServerPID is only implemented on Linux (it finds kube-apiserver in /proc).
func (e *Env) APIServerPID() (int, error) {
	return 0, fmt.Errorf("finding kube-apiserver: %w", errors.ErrUnsupported)
}
