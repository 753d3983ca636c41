package pgserver

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// account is the system user the server runs as: the postgres user when
// the tests run as root, else nil for the current user.
type account struct {
	uid, gid int
}

// serverAccount returns the user initdb and postgres run as.
func serverAccount() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL refuses to run as root and there is no postgres user (Debian's postgresql package creates it): %w", err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil, fmt.Errorf("uid %q of the postgres user: %w", u.Uid, err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return nil, fmt.Errorf("gid %q of the postgres user: %w", u.Gid, err)
	}
	return &account{uid: uid, gid: gid}, nil
}

// sysProcAttr runs a process as the account, in a process group of its
// own, killed if the test process dies.
func (a *account) sysProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if a != nil {
		attr.Credential = &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid)}
	}
	return attr
}

// chown gives path to the account.
func (a *account) chown(path string) error {
	if a == nil {
		return nil
	}
	if err := os.Chown(path, a.uid, a.gid); err != nil {
		return fmt.Errorf("giving %s to the postgres user: %w", path, err)
	}
	return nil
}

// tempBase is where the server's directory goes: the temporary directory,
// unless the account cannot reach it (a TMPDIR under /root), then /tmp.
func tempBase(a *account) string {
	base := os.TempDir()
	if a == nil {
		return base
	}
	for dir := base; ; dir = filepath.Dir(dir) {
		info, err := os.Stat(dir)
		if err != nil || info.Mode().Perm()&0o001 == 0 {
			return "/tmp"
		}
		if dir == filepath.Dir(dir) {
			return base
		}
	}
}
