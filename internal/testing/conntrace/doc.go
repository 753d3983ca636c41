// Package conntrace records, at the socket, the connections a running
// process opens: it attaches strace to the process and its threads
// (strace -f -e trace=connect -p PID) and reads every connect(2) call to an
// IPv4 or IPv6 address from strace's output, whether the call succeeded or
// not; Unix sockets are left out. A suite proves with it that kube-apiserver
// connects to nothing off the machine while a chart is installed.
//
// strace must be installed (make test installs Debian's strace package) and
// may attach only where ptrace(2) is allowed: as root, or where
// /proc/sys/kernel/yama/ptrace_scope is 0.
package conntrace
