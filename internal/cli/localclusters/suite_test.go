package localclusters_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestLocalClusters(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "cli/localclusters")
}

// The specs refuse bad flags before anything starts: they need no cluster.
