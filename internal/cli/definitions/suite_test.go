package definitions_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The commands here need no cluster; wavekit definition list and create
// --apply run against the operator in test/definitions.
func TestDefinitions(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "cli/definitions")
}
