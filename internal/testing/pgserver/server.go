package pgserver

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
)

// AdminUser is the superuser every server is made with.
const AdminUser = "admin"

// Server is one PostgreSQL server of a test: its directory, port and
// superuser, and its process while it runs.
type Server struct {
	bin      string
	account  *account
	dir      string
	port     int
	password string

	mu   sync.Mutex
	proc *process
}

// Start makes a new server in a temporary directory and starts it on a
// free port of 127.0.0.1; it returns once the superuser can log in. On
// failure it removes what it made.
func Start(ctx context.Context) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	acct, err := serverAccount()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(tempBase(acct), "pgserver-")
	if err != nil {
		return nil, fmt.Errorf("making the PostgreSQL server's directory: %w", err)
	}
	s := &Server{bin: bin, account: acct, dir: dir, password: randomPassword()}
	if err := s.initdb(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		if s.port, err = freePort(); err != nil {
			_ = s.Close()
			return nil, err
		}
		err = s.Start(ctx)
		if err == nil {
			return s, nil
		}
		if attempt == 3 || !errors.Is(err, errPortTaken) {
			_ = s.Close()
			return nil, err
		}
	}
}

// AdminCredentials returns how to reach the server as its superuser, with
// the keys of a provider's credentials Secret: host, port, user, password,
// dbname.
func (s *Server) AdminCredentials() map[string][]byte {
	return map[string][]byte{
		"host":     []byte("127.0.0.1"),
		"port":     []byte(strconv.Itoa(s.port)),
		"user":     []byte(AdminUser),
		"password": []byte(s.password),
		"dbname":   []byte("postgres"),
	}
}

// Port returns the server's TCP port on 127.0.0.1.
func (s *Server) Port() int { return s.port }

// ConnString returns a connection URL for user and password to database
// on the server.
func (s *Server) ConnString(user, password, database string) string {
	return connURL(s.port, user, password, database)
}

// Restart stops the server and starts it again on the same port and data.
func (s *Server) Restart(ctx context.Context) error {
	if err := s.Stop(); err != nil {
		return err
	}
	return s.Start(ctx)
}

// Close stops the server and removes its directory.
func (s *Server) Close() error {
	stopErr := s.Stop()
	if err := os.RemoveAll(s.dir); err != nil {
		return errors.Join(stopErr, fmt.Errorf("removing the PostgreSQL server's directory %s: %w", s.dir, err))
	}
	return stopErr
}

// Log returns what the server has logged so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.logFile())
	return string(b)
}

func (s *Server) dataDir() string   { return filepath.Join(s.dir, "data") }
func (s *Server) socketDir() string { return filepath.Join(s.dir, "sock") }
func (s *Server) logFile() string   { return filepath.Join(s.dir, "postgres.log") }

// randomPassword returns 24 random letters and digits.
func randomPassword() string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = chars[int(b[i])%len(chars)]
	}
	return string(b)
}

// command returns the server binary name run as the server's account in
// its directory, its output appended to the log.
func (s *Server) command(ctx context.Context, name string, args ...string) (*exec.Cmd, error) {
	log, err := os.OpenFile(s.logFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the PostgreSQL server's log: %w", err)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.Env = []string{"LC_ALL=C", "PATH=" + s.bin + ":/usr/bin:/bin"}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = s.account.sysProcAttr()
	return cmd, nil
}
