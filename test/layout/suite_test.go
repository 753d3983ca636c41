// Package layout_test keeps the module's layout as a reader finds their way
// in it: no package of pkg/ holds more than 30 non-test Go files (two
// allowed for now, named in rules_test.go), no product code imports a test
// helper of internal/testing, and every package has a doc.go that says what
// it owns. It reads the module's files and runs in make test.
package layout_test

import (
	"path/filepath"
	"runtime"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestLayout(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "layout")
}

// moduleRoot is the directory of the wavekit module, found from this file.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}
