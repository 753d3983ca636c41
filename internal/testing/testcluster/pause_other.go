//go:build !linux

package testcluster

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// PauseEtcd is only implemented on Linux (it finds etcd in /proc).
func (e *Env) PauseEtcd(context.Context, time.Duration) error {
	return fmt.Errorf("pausing etcd: %w", errors.ErrUnsupported)
}

// PauseControllerManager is only implemented on Linux.
func (e *Env) PauseControllerManager(context.Context, time.Duration) error {
	return fmt.Errorf("pausing kube-controller-manager: %w", errors.ErrUnsupported)
}
