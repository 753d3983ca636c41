//go:build !unix

package clusterrun

import "syscall"

// detached is the default elsewhere.
func detached() *syscall.SysProcAttr { return nil }
