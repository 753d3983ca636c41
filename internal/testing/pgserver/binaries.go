package pgserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
)

// binDir returns the directory of the newest installed PostgreSQL server's
// initdb and postgres: /usr/lib/postgresql/<version>/bin, else the PATH's.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, dir := range dirs {
		if isFile(filepath.Join(dir, "initdb")) && isFile(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	if initdb, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(initdb)
		if isFile(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL server found in /usr/lib/postgresql/*/bin or on the PATH: run `make postgres` (it installs Debian's postgresql package)")
}

// versionOf returns the major version of /usr/lib/postgresql/<version>/bin.
func versionOf(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}
