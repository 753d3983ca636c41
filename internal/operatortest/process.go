package operatortest

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
)

// BuildOperator builds cmd/component-operator of the module at root into
// dir and returns the binary's path.
func BuildOperator(root, dir string) (string, error) {
	binary := filepath.Join(dir, "component-operator")
	build := exec.Command("go", "build", "-o", binary, "./cmd/component-operator")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the operator: %w\n%s", err, out)
	}
	return binary, nil
}

// FreeLocalAddress returns a loopback address with a port nobody listens on.
func FreeLocalAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}
