//go:build unix

package clusterrun

import "syscall"

// detached puts a process in a session of its own.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
