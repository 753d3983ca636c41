package releases_test

import (
	"fmt"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
)

var _ = Describe("a Git SOURCE", Ordered, func() {
	var (
		server *gitserver.Server
		repo   *gitserver.Repo
		dir    string
	)
	template := `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Name }}-config
data:
  version: %q
`
	BeforeAll(func() {
		var err error
		dir = GinkgoT().TempDir()
		server, err = gitserver.Start(dir, gitserver.Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(server.Close)
		repo, err = server.NewRepo("deploy")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Write(map[string]string{"apps/web/config.yaml": fmt.Sprintf(template, "v1")})).To(Succeed())
		_, err = repo.Commit("v1")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Tag("v1")).To(Succeed())
		Expect(repo.Write(map[string]string{"apps/web/config.yaml": fmt.Sprintf(template, "v2")})).To(Succeed())
		_, err = repo.Commit("v2")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Push()).To(Succeed())
	})

	It("renders a path of a repository at a ref, named after the path", func() {
		r := clitest.WavekitWith(clitest.Unreachable, "render", server.HTTPURL("deploy")+"//apps/web?ref=v1")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(decode(r.Stdout)).To(Equal([]string{"ConfigMap web-config"}))
		Expect(r.Stdout).To(ContainSubstring(`version: v1`))
		Expect(r.Stderr).To(MatchRegexp(`git: \S+deploy.git at v1@sha1:[0-9a-f]{40}`))

		r = clitest.WavekitWith(clitest.Unreachable, "render", server.HTTPURL("deploy"), "--git-path", "apps/web", "--name", "demo")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring(`version: v2`))
		Expect(decode(r.Stdout)).To(Equal([]string{"ConfigMap demo-config"}))
	})

	It("exits non-zero for an unknown ref, a missing path, an unsigned commit, and a host key known_hosts does not hold", func() {
		r := clitest.WavekitWith(clitest.Unreachable, "render", server.HTTPURL("deploy")+"//apps/web", "--git-ref", "nope")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("no branch or tag nope (branches: main; tags: v1)"))

		r = clitest.WavekitWith(clitest.Unreachable, "render", server.HTTPURL("deploy")+"//apps/db")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("no directory apps/db at main@sha1:"))

		_, public, err := gitserver.NewSSHSigningKey(dir, "trusted")
		Expect(err).NotTo(HaveOccurred())
		keyFile := filepath.Join(dir, "trusted.sshpub")
		Expect(os.WriteFile(keyFile, public, 0o644)).To(Succeed())
		r = clitest.WavekitWith(clitest.Unreachable, "render", server.HTTPURL("deploy")+"//apps/web", "--git-verify-key", keyFile)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("it is not signed"))

		key, err := server.ClientKey()
		Expect(err).NotTo(HaveOccurred())
		keyPath, knownPath, otherPath := filepath.Join(dir, "id"), filepath.Join(dir, "known_hosts"), filepath.Join(dir, "other_hosts")
		Expect(os.WriteFile(keyPath, key, 0o600)).To(Succeed())
		Expect(os.WriteFile(knownPath, server.KnownHosts(), 0o644)).To(Succeed())
		other, err := server.OtherKnownHosts()
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(otherPath, other, 0o644)).To(Succeed())
		r = clitest.WavekitWith(clitest.Unreachable, "render", server.SSHURL("deploy")+"//apps/web", "--git-ssh-key", keyPath, "--git-known-hosts", otherPath)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("host key mismatch"))
		r = clitest.WavekitWith(clitest.Unreachable, "render", server.SSHURL("deploy")+"//apps/web", "--git-ssh-key", keyPath, "--git-known-hosts", knownPath)
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring(`version: v2`))
	})

	It("applies a path of a repository as a release", func() {
		ns := clitest.NewNamespace()
		out := clitest.Succeeds("apply", "web", server.HTTPURL("deploy")+"//apps/web?ref=v1", "-n", ns, "--wait")
		Expect(out).NotTo(BeEmpty())
		Expect(clitest.ConfigMap(ns, "web-config").Data).To(HaveKeyWithValue("version", "v1"))
	})
})
