package operatortest

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
)

// BuildOperator builds cmd/component-operator of the module at root into
// dir and returns the binary's path.
func BuildOperator(root, dir string) (string, error) {
	return BuildOperatorWithTags(root, dir)
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

// BuildOperatorWithTags is BuildOperator with build tags (a test-only
// variant of the binary, such as one that carries planted bugs).
func BuildOperatorWithTags(root, dir string, tags ...string) (string, error) {
	binary := filepath.Join(dir, "component-operator")
	build := exec.Command("go", "build", "-tags", strings.Join(tags, ","), "-o", binary, "./cmd/component-operator")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the operator with tags %v: %w\n%s", tags, err, out)
	}
	return binary, nil
}

// Kubectl returns kubectl from PATH, else the one hack/kubectl of the
// module at root builds into dir.
func Kubectl(root, dir string) (string, error) {
	if path, err := exec.LookPath("kubectl"); err == nil {
		return path, nil
	}
	binary := filepath.Join(dir, "kubectl")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Dir = filepath.Join(root, "hack", "kubectl")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building kubectl: %w\n%s", err, out)
	}
	return binary, nil
}
