package k8sbin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/mod/modfile"
)

// ModulePath is wavekit's Go module path.
const ModulePath = "github.com/wavekit-dev/wavekit"

// checkoutStamp is the root of the wavekit checkout a binary was built from,
// set at link time with
//
//	-ldflags "-X github.com/wavekit-dev/wavekit/pkg/testenv/k8sbin.checkoutStamp=$(pwd)"
//
// so that a -trimpath build still knows it; empty in a plain go build.
var checkoutStamp string

// ErrNoCheckout is returned by Checkout when the binary does not know the
// wavekit source tree it was built from.
var ErrNoCheckout = errors.New("the wavekit checkout this binary was built from is not known")

// Checkout returns the root of the wavekit source tree this binary was built
// from: the stamped one, else the directory the compiler recorded for this
// package's source (absolute unless the build used -trimpath). The root must
// still hold a go.mod that declares wavekit's module. The error wraps
// ErrNoCheckout and says where it looked.
func Checkout() (string, error) {
	if checkoutStamp != "" {
		return verifyCheckout(checkoutStamp, "stamped at link time")
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(filepath.FromSlash(file)) {
		return "", fmt.Errorf("%w: the binary records no source path (built with -trimpath?)", ErrNoCheckout)
	}
	dir := filepath.Dir(filepath.FromSlash(file))
	testenv := filepath.Dir(dir)
	if filepath.Base(dir) != "k8sbin" || filepath.Base(testenv) != "testenv" || filepath.Base(filepath.Dir(testenv)) != "pkg" {
		return "", fmt.Errorf("%w: source path %s is not below pkg/testenv/k8sbin", ErrNoCheckout, dir)
	}
	return verifyCheckout(filepath.Dir(filepath.Dir(testenv)), "recorded by the compiler")
}

// verifyCheckout returns root when its go.mod declares wavekit's module.
func verifyCheckout(root, how string) (string, error) {
	gomod := filepath.Join(root, "go.mod")
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", fmt.Errorf("%w: the source directory %s (%s): %w", ErrNoCheckout, root, how, err)
	}
	if got := modfile.ModulePath(data); got != ModulePath {
		return "", fmt.Errorf("%w: %s (%s) declares module %q, not %s", ErrNoCheckout, gomod, how, got, ModulePath)
	}
	return root, nil
}
