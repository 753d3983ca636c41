package pgserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// errPortTaken is a start that failed because another process took the
// port between freePort and the server's bind.
var errPortTaken = errors.New("port taken")

// startTimeout bounds how long a start waits for the server to accept the
// superuser.
const startTimeout = 60 * time.Second

// process is the running postgres and the end of its wait.
type process struct {
	pid  int
	done chan struct{}
}

// Start starts the server again after Stop, on the same port and data
// directory; it returns once the superuser can log in. A running server
// is left as it is.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return nil
	}
	cmd, err := s.command(context.Background(), "postgres", "-D", s.dataDir(), "-p", strconv.Itoa(s.port),
		"-k", s.socketDir(), "-c", "listen_addresses=127.0.0.1", "-c", "password_encryption=scram-sha-256",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "shared_buffers=16MB", "-c", "max_connections=40")
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting postgres on port %d: %w", s.port, err)
	}
	p := &process{pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	if err := s.waitReady(ctx, p); err != nil {
		stop(p)
		return err
	}
	s.proc = p
	return nil
}

// waitReady waits until the superuser can log in over TCP, or the server
// exits, or startTimeout passes.
func (s *Server) waitReady(ctx context.Context, p *process) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	var last error
	for {
		select {
		case <-p.done:
			tail := s.logTail()
			if strings.Contains(tail, "Address already in use") {
				return fmt.Errorf("postgres on port %d: %w", s.port, errPortTaken)
			}
			return fmt.Errorf("postgres on port %d exited while starting:\n%s", s.port, tail)
		case <-ctx.Done():
			return fmt.Errorf("postgres on port %d not ready: %w (last: %v)\n%s", s.port, ctx.Err(), last, s.logTail())
		case <-time.After(100 * time.Millisecond):
		}
		if last = s.ping(ctx); last == nil {
			return nil
		}
	}
}

// ping logs in as the superuser once.
func (s *Server) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, connURL(s.port, AdminUser, s.password, "postgres"))
	if err != nil {
		return errors.New("cannot log in yet")
	}
	return conn.Close(ctx)
}

// Stop shuts the server down (fast shutdown: sessions are ended) and
// waits for it to exit; its port and data stay for Start.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return nil
	}
	err := stop(s.proc)
	s.proc = nil
	return err
}

// stop asks postgres for a fast shutdown and kills its process group if
// it has not exited within 30 seconds.
func stop(p *process) error {
	_ = syscall.Kill(p.pid, syscall.SIGINT)
	select {
	case <-p.done:
		return nil
	case <-time.After(30 * time.Second):
	}
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	<-p.done
	return fmt.Errorf("postgres (pid %d) did not shut down within 30s and was killed", p.pid)
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port for postgres: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// connURL returns a postgres:// URL for 127.0.0.1:port.
func connURL(port int, user, password, database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(user, password),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}
