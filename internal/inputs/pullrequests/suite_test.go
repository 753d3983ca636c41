package pullrequests_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/secretmap"
)

func TestPullRequests(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "pullrequests")
}

// secrets are the Secrets the specs' sets read: the reader is not what
// they test.
type secrets = secretmap.Reader
