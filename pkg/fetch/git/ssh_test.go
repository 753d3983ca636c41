package git_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

var _ = Describe("authentication", func() {
	It("fetches over SSH with a key and known_hosts, and refuses a host key known_hosts does not hold", func() {
		repo := newRepo("over-ssh", map[string]string{"f": "ssh"})
		key, err := server.ClientKey()
		Expect(err).NotTo(HaveOccurred())
		src := newSource()
		url := server.SSHURL(repo.Name)
		tree, err := src.Get(ctx, git.Request{URL: url, Auth: &git.Auth{SSHKey: key, KnownHosts: server.KnownHosts()}})
		Expect(err).NotTo(HaveOccurred())
		Expect(read(tree, "f")).To(Equal("ssh"))
		sessions := server.Counts(repo.Name).SSHSessions
		Expect(sessions).To(Equal(2), "a look, then a fetch")

		other, err := server.OtherKnownHosts()
		Expect(err).NotTo(HaveOccurred())
		_, err = newSource().Get(ctx, git.Request{URL: url, Auth: &git.Auth{SSHKey: key, KnownHosts: other}})
		mismatch := errorAs[*git.HostKeyError](err)
		Expect(mismatch.Presented).To(Equal(server.HostKeyFingerprint()))
		Expect(mismatch.Known).To(HaveLen(1))
		Expect(mismatch.Known[0]).NotTo(Equal(server.HostKeyFingerprint()))
		Expect(err.Error()).To(ContainSubstring("host key mismatch"))
		Expect(git.IsTransient(err)).To(BeFalse())
		Expect(server.Counts(repo.Name).SSHSessions).To(Equal(sessions), "no session once the host key is refused")

		line := strings.Fields(string(server.KnownHosts()))
		_, err = newSource().Get(ctx, git.Request{URL: url, Auth: &git.Auth{SSHKey: key, KnownHosts: []byte("example.com " + line[1] + " " + line[2])}})
		Expect(errorAs[*git.HostKeyError](err).Known).To(BeEmpty(), "a host known_hosts does not know")

		_, err = newSource().Get(ctx, git.Request{URL: url, Auth: &git.Auth{SSHKey: key}})
		Expect(err).To(MatchError(ContainSubstring("SSH needs known_hosts")))

		stranger, _, err := gitserver.NewSSHSigningKey(GinkgoT().TempDir(), "stranger")
		Expect(err).NotTo(HaveOccurred())
		strangerKey, err := os.ReadFile(stranger)
		Expect(err).NotTo(HaveOccurred())
		_, err = newSource().Get(ctx, git.Request{URL: url, Auth: &git.Auth{SSHKey: strangerKey, KnownHosts: server.KnownHosts()}})
		Expect(errorAs[*git.AuthError](err).Anonymous).To(BeFalse())
	})

	It("authenticates over HTTP with basic credentials, and trusts a CA for HTTPS", func() {
		private, err := gitserver.Start(GinkgoT().TempDir(), gitserver.Options{Username: "bot", Password: "s3cr3t", TLS: true})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(private.Close)
		repo, err := private.NewRepo("private")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Write(map[string]string{"f": "private"})).To(Succeed())
		_, err = repo.Commit("first")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Push()).To(Succeed())
		url := private.HTTPURL(repo.Name)

		_, err = newSource().Get(ctx, git.Request{URL: url, Auth: &git.Auth{Username: "bot", Password: "s3cr3t"}})
		Expect(err).To(MatchError(ContainSubstring("certificate")))
		Expect(git.IsTransient(err)).To(BeFalse())

		_, err = newSource().Get(ctx, git.Request{URL: url, Auth: &git.Auth{CA: private.CA()}})
		Expect(errorAs[*git.AuthError](err).Anonymous).To(BeTrue())

		_, err = newSource().Get(ctx, git.Request{URL: url, Auth: &git.Auth{Username: "bot", Password: "wrong", CA: private.CA()}})
		Expect(err).To(MatchError(ContainSubstring("authentication failed")))
		Expect(err.Error()).NotTo(ContainSubstring("wrong"))

		tree, err := newSource().Get(ctx, git.Request{URL: url, Auth: &git.Auth{Username: "bot", Password: "s3cr3t", CA: private.CA()}})
		Expect(err).NotTo(HaveOccurred())
		Expect(read(tree, "f")).To(Equal("private"))
	})

	It("presents a client certificate where HTTPS asks for one", func() {
		mtls, err := gitserver.Start(GinkgoT().TempDir(), gitserver.Options{TLS: true, ClientCertificates: true})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(mtls.Close)
		repo, err := mtls.NewRepoWith("mtls", map[string]string{"f": "mtls"})
		Expect(err).NotTo(HaveOccurred())
		_, err = newSource().Get(ctx, git.Request{URL: mtls.HTTPURL(repo.Name), Auth: &git.Auth{CA: mtls.CA()}})
		Expect(err).To(HaveOccurred(), "no client certificate")
		cert, key := mtls.ClientCertificate()
		_, err = newSource().Get(ctx, git.Request{URL: mtls.HTTPURL(repo.Name), Auth: &git.Auth{CA: mtls.CA(), CertPEM: cert}})
		Expect(errorAs[*git.RequestError](err).Err).To(MatchError("a client certificate needs both tls.crt and tls.key"))
		tree, err := newSource().Get(ctx, git.Request{URL: mtls.HTTPURL(repo.Name), Auth: &git.Auth{CA: mtls.CA(), CertPEM: cert, KeyPEM: key}})
		Expect(err).NotTo(HaveOccurred())
		Expect(read(tree, "f")).To(Equal("mtls"))
	})

	It("does not share a look between identities: one without credentials looks for itself", func() {
		private, err := gitserver.Start(GinkgoT().TempDir(), gitserver.Options{Username: "bot", Password: "s3cr3t"})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(private.Close)
		repo, err := private.NewRepo("tenant")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Write(map[string]string{"f": "x"})).To(Succeed())
		_, err = repo.Commit("first")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Push()).To(Succeed())
		src := newSource()
		url := private.HTTPURL(repo.Name)
		_, err = src.Get(ctx, git.Request{URL: url, Identity: "team-a/creds", Auth: &git.Auth{Username: "bot", Password: "s3cr3t"}, MaxAge: 1 << 40})
		Expect(err).NotTo(HaveOccurred())
		_, err = src.Get(ctx, git.Request{URL: url, Identity: "", MaxAge: 1 << 40})
		Expect(errorAs[*git.AuthError](err).Anonymous).To(BeTrue())
	})
})

var _ = Describe("submodules", func() {
	It("fetches the submodules the tree records, at their commits, and ignores stale .gitmodules entries", func() {
		child := newRepo("child", map[string]string{"lib.yaml": "from the child"})
		parent, err := server.NewRepo("parent")
		Expect(err).NotTo(HaveOccurred())
		Expect(parent.Write(map[string]string{"app.yaml": "parent"})).To(Succeed())
		_, err = parent.Git("-c", "protocol.file.allow=always", "submodule", "--quiet", "add", "../child.git", "vendor/child")
		Expect(err).NotTo(HaveOccurred())
		gitmodules := filepath.Join(parent.Work, ".gitmodules")
		data, err := os.ReadFile(gitmodules)
		Expect(err).NotTo(HaveOccurred())
		stale := "[submodule \"gone\"]\n\tpath = gone\n\turl = ../gone.git\n"
		Expect(os.WriteFile(gitmodules, append(data, stale...), 0o644)).To(Succeed())
		_, err = parent.Commit("with a submodule")
		Expect(err).NotTo(HaveOccurred())
		Expect(parent.Push()).To(Succeed())
		commit(child, map[string]string{"lib.yaml": "newer, not recorded"})

		var allowed []string
		src := newSource()
		tree, err := src.Get(ctx, git.Request{URL: server.HTTPURL(parent.Name), Checkout: git.Checkout{Submodules: true},
			Allow: func(url string) error { allowed = append(allowed, url); return nil }})
		Expect(err).NotTo(HaveOccurred())
		Expect(read(tree, "vendor/child/lib.yaml")).To(Equal("from the child"))
		Expect(allowed).To(ContainElement(server.HTTPURL(child.Name)))

		By("a request that may not reach the submodule's URL gets no tree, even from the cache")
		_, err = src.Get(ctx, git.Request{URL: server.HTTPURL(parent.Name), Checkout: git.Checkout{Submodules: true},
			Allow: func(url string) error { return errors.New("refused " + url) }})
		Expect(err).To(MatchError("refused " + server.HTTPURL(child.Name)))
		Expect(src.Stats().Fetches).To(Equal(int64(2)), "the tree and its submodule, once")

		without, err := newSource().Get(ctx, git.Request{URL: server.HTTPURL(parent.Name)})
		Expect(err).NotTo(HaveOccurred())
		Expect(filepath.Join(without.Dir, "vendor", "child")).To(BeADirectory())
		Expect(filepath.Join(without.Dir, "vendor", "child", "lib.yaml")).NotTo(BeAnExistingFile())
	})
})

var _ = Describe("a remote that does not answer", func() {
	It("is given up after the request's timeout, which the error names, and may be tried again", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		accepted := make(chan net.Conn, 16)
		go func() { // accept and say nothing
			for {
				conn, err := l.Accept()
				if err != nil {
					close(accepted)
					return
				}
				accepted <- conn
			}
		}()
		DeferCleanup(func() {
			_ = l.Close()
			for conn := range accepted {
				_ = conn.Close()
			}
		})
		_, err = newSource().Get(ctx, git.Request{URL: "http://" + l.Addr().String() + "/silent.git", Timeout: 300 * time.Millisecond})
		Expect(err).To(MatchError(ContainSubstring("the timeout of 300ms passed")))
		Expect(git.IsTransient(err)).To(BeTrue())
	})
})
