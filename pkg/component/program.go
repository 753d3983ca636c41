package component

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
)

// programDigest identifies the operator's own program, for the inputs of a
// generator that does not declare its own (manifests.InputsDeclarer): the
// digest of its executable, read once, so that a new build renders every
// component again once and a restart of the same build renders nothing.
// Where the executable cannot be read, the module versions it was built
// from stand for it.
var programDigest = sync.OnceValue(func() string {
	if digest, err := executableDigest(); err == nil {
		return digest
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown program"
	}
	return "build " + info.String()
})

func executableDigest() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the executable: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading the executable: %w", err)
	}
	defer f.Close()
	sum := sha256.New()
	if _, err := io.Copy(sum, f); err != nil {
		return "", fmt.Errorf("reading the executable %s: %w", path, err)
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)), nil
}
