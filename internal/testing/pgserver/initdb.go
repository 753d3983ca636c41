package pgserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// initdb makes the directory's layout, owned by the server's account, and
// a new cluster in data/ with the superuser and its password: SCRAM on
// TCP, trust on the socket in the directory only the account can reach.
func (s *Server) initdb(ctx context.Context) error {
	if err := os.Chmod(s.dir, 0o700); err != nil {
		return fmt.Errorf("making the PostgreSQL server's directory private: %w", err)
	}
	pwfile := filepath.Join(s.dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.password+"\n"), 0o600); err != nil {
		return fmt.Errorf("writing the superuser's password file: %w", err)
	}
	if err := os.Mkdir(s.socketDir(), 0o700); err != nil {
		return fmt.Errorf("making the PostgreSQL socket directory: %w", err)
	}
	for _, path := range []string{s.dir, pwfile, s.socketDir()} {
		if err := s.account.chown(path); err != nil {
			return err
		}
	}
	cmd, err := s.command(ctx, "initdb", "-D", s.dataDir(), "-U", AdminUser, "--pwfile", pwfile,
		"--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	if err != nil {
		return err
	}
	err = cmd.Run()
	_ = os.Remove(pwfile)
	if err != nil {
		return fmt.Errorf("initdb in %s: %w\n%s", s.dataDir(), err, s.logTail())
	}
	return nil
}

// logTail returns the end of the server's log, for errors.
func (s *Server) logTail() string {
	b, err := os.ReadFile(s.logFile())
	if err != nil {
		return ""
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
