package runonce

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// TestRunOnce runs the specs of EndStates; they need no API server.
func TestRunOnce(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "runonce")
}
