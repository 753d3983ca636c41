package gitinputs_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/secretmap"

	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
)

func TestGitInputs(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "gitinputs")
}

var (
	ctx    = context.Background()
	server *gitserver.Server
	// private needs the user "reader" and its password.
	private *gitserver.Server
)

var _ = BeforeSuite(func() {
	var err error
	server, err = gitserver.Start(GinkgoT().TempDir(), gitserver.Options{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(server.Close)
	private, err = gitserver.Start(GinkgoT().TempDir(), gitserver.Options{Username: "reader", Password: "git-password-value"})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(private.Close)
})

// secrets are the Secrets the specs' sets read: the reader is not what
// they test.
type secrets = secretmap.Reader
