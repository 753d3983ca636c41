package conntrace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// attachTimeout bounds how long strace may take to attach.
const attachTimeout = time.Minute

// Connect is one connect(2) call to an IP address or a Unix socket.
type Connect struct {
	// Addr is the IP address and port connected to, if any.
	Addr netip.AddrPort
	// Socket is the path of the Unix socket connected to, if any.
	Socket string
	// Line is strace's line of the call.
	Line string
}

// String is the address and port, or the socket, connected to.
func (c Connect) String() string {
	if c.Socket != "" {
		return c.Socket
	}
	return c.Addr.String()
}

// Tracer is strace attached to a process.
type Tracer struct {
	cmd    *exec.Cmd
	output string
	exited chan struct{} // closed when cmd.Wait returned
	err    error         // cmd.Wait's error, set before exited is closed
}

// Attach attaches strace to process pid, its threads and the processes and
// threads it starts from now on, and returns once strace has attached.
func Attach(pid int) (*Tracer, error) {
	path, err := exec.LookPath("strace")
	if err != nil {
		return nil, fmt.Errorf("tracing the connections of process %d: strace is not installed (make strace installs Debian's package): %w", pid, err)
	}
	output, err := os.CreateTemp("", "conntrace-*.txt")
	if err != nil {
		return nil, fmt.Errorf("creating the trace file of process %d: %w", pid, err)
	}
	_ = output.Close()
	t := &Tracer{output: output.Name(), exited: make(chan struct{})}
	t.cmd = exec.Command(path, "-f", "-e", "trace=connect", "-o", t.output, "-p", strconv.Itoa(pid))
	stderr, err := t.cmd.StderrPipe()
	if err != nil {
		return nil, errors.Join(err, os.Remove(t.output))
	}
	if err := t.cmd.Start(); err != nil {
		return nil, errors.Join(fmt.Errorf("starting strace on process %d: %w", pid, err), os.Remove(t.output))
	}
	go func() {
		t.err = t.cmd.Wait()
		close(t.exited)
	}()
	if err := t.waitAttached(stderr); err != nil {
		_, stopErr := t.Stop()
		return nil, errors.Join(fmt.Errorf("attaching strace to process %d: %w", pid, err), stopErr)
	}
	return t, nil
}

// waitAttached reads strace's messages until it says it has attached, then
// keeps reading them, so that strace never blocks on a full pipe.
func (t *Tracer) waitAttached(stderr io.Reader) error {
	lines := bufio.NewScanner(stderr)
	attached := make(chan error, 1)
	go func() {
		var said []string
		for lines.Scan() {
			said = append(said, lines.Text())
			if strings.Contains(lines.Text(), "attached") {
				attached <- nil
				_, _ = io.Copy(io.Discard, stderr)
				return
			}
		}
		attached <- fmt.Errorf("strace ended before it attached: %s", strings.Join(said, "; "))
	}()
	select {
	case err := <-attached:
		return err
	case <-time.After(attachTimeout):
		return fmt.Errorf("strace has not attached within %s", attachTimeout)
	}
}

// Stop detaches strace and returns the connect calls it recorded (see
// Parse).
func (t *Tracer) Stop() ([]Connect, error) {
	defer os.Remove(t.output)
	if err := t.cmd.Process.Signal(syscall.SIGINT); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return nil, fmt.Errorf("stopping strace: %w", err)
	}
	select {
	case <-t.exited:
	case <-time.After(attachTimeout):
		_ = t.cmd.Process.Kill()
		return nil, fmt.Errorf("strace (pid %d) has not detached within %s", t.cmd.Process.Pid, attachTimeout)
	}
	f, err := os.Open(t.output)
	if err != nil {
		return nil, fmt.Errorf("reading strace's output: %w", err)
	}
	defer f.Close()
	return Parse(f)
}

// connectCall matches the start of a connect(2) call in strace's output.
var connectCall = regexp.MustCompile(`connect\(\d+, \{sa_family=(AF_INET6?|AF_UNIX),`)

// The address of each family as strace writes it.
var (
	inet4 = regexp.MustCompile(`sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)`)
	inet6 = regexp.MustCompile(`sin6_port=htons\((\d+)\), .*inet_pton\(AF_INET6, "([^"]+)"`)
	unix  = regexp.MustCompile(`sun_path=@?"([^"]*)"`)
)

// Parse reads strace's output and returns its connect calls to IPv4 and
// IPv6 addresses and to named Unix sockets; other families (AF_NETLINK) are
// left out. A call to an IP address whose address it cannot read is an
// error, so that a change of strace's format fails a check instead of
// passing it.
func Parse(r io.Reader) ([]Connect, error) {
	var connects []Connect
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 64<<10), 1<<20)
	for lines.Scan() {
		line := lines.Text()
		call := connectCall.FindStringSubmatch(line)
		switch {
		case call == nil:
			continue
		case call[1] == "AF_UNIX":
			if m := unix.FindStringSubmatch(line); m != nil {
				connects = append(connects, Connect{Socket: m[1], Line: line})
			}
			continue
		}
		addr, err := ipAddress(call[1], line)
		if err != nil {
			return nil, err
		}
		connects = append(connects, Connect{Addr: addr, Line: line})
	}
	return connects, lines.Err()
}

// ipAddress reads the address and port of a connect call of family
// AF_INET or AF_INET6.
func ipAddress(family, line string) (netip.AddrPort, error) {
	address := inet4
	if family == "AF_INET6" {
		address = inet6
	}
	m := address.FindStringSubmatch(line)
	if m == nil {
		return netip.AddrPort{}, fmt.Errorf("reading the address of strace's line %q", line)
	}
	addr, err := netip.ParseAddr(m[2])
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("reading the address of strace's line %q: %w", line, err)
	}
	port, err := strconv.ParseUint(m[1], 10, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("reading the port of strace's line %q: %w", line, err)
	}
	return netip.AddrPortFrom(addr, uint16(port)), nil
}

// OffMachine returns the connects to an IP address outside 127.0.0.0/8 and
// ::1 (an IPv4-mapped 127.x counts as loopback).
func OffMachine(connects []Connect) []Connect {
	var off []Connect
	for _, c := range connects {
		if c.Socket == "" && !c.Addr.Addr().Unmap().IsLoopback() {
			off = append(off, c)
		}
	}
	return off
}

// ToSocket counts the connects to the Unix socket at path.
func ToSocket(connects []Connect, path string) int {
	n := 0
	for _, c := range connects {
		if c.Socket == path {
			n++
		}
	}
	return n
}
