package git_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

var _ = Describe("where a remote leads", func() {
	It("gives up an SSH server that accepts and never speaks after the timeout, and frees the host's connection", func() {
		silent := listenSilently()
		key, err := server.ClientKey()
		Expect(err).NotTo(HaveOccurred())
		host, port, err := net.SplitHostPort(silent)
		Expect(err).NotTo(HaveOccurred())
		line := strings.Fields(string(server.KnownHosts()))
		known := []byte("[" + host + "]:" + port + " " + line[1] + " " + line[2] + "\n")
		src := newSource(git.WithHostConcurrency(1))
		get := func() chan error {
			done := make(chan error, 1)
			go func() {
				_, err := src.Get(ctx, git.Request{URL: "ssh://git@" + silent + "/r.git", Timeout: 300 * time.Millisecond,
					Auth: &git.Auth{SSHKey: key, KnownHosts: known}})
				done <- err
			}()
			return done
		}
		for range 2 { // the second one would find the host's one connection held
			var err error
			Eventually(get()).WithTimeout(30 * time.Second).Should(Receive(&err))
			Expect(err).To(MatchError(ContainSubstring("the timeout of 300ms passed")))
			Expect(err.Error()).NotTo(ContainSubstring("waiting for one of the 1 connections"))
			Expect(git.IsTransient(err)).To(BeTrue())
		}
	})

	It("asks Allow about the repository a redirect leads to before following it", func() {
		repo := newRepo("redirected", map[string]string{"f": "moved here"})
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			to := server.HTTPURL(repo.Name) + strings.TrimPrefix(r.URL.Path, "/old.git") + "?" + r.URL.RawQuery
			http.Redirect(w, r, to, http.StatusMovedPermanently)
		}))
		DeferCleanup(redirector.Close)
		old := redirector.URL + "/old.git"
		onlyOld := func(u string) error {
			if u == old {
				return nil
			}
			return errors.New(u + " is not allowed")
		}
		_, err := newSource().Get(ctx, git.Request{URL: old, Allow: onlyOld})
		refused := errorAs[*git.RedirectError](err)
		Expect(refused.From).To(Equal(old))
		Expect(refused.To).To(Equal(server.HTTPURL(repo.Name)))
		Expect(err).To(MatchError(ContainSubstring(server.HTTPURL(repo.Name) + " is not allowed")))
		Expect(server.Counts(repo.Name)).To(BeZero(), "no request reached the repository it leads to")

		tree, err := newSource().Get(ctx, git.Request{URL: old, Allow: func(string) error { return nil }})
		Expect(err).NotTo(HaveOccurred())
		Expect(read(tree, "f")).To(Equal("moved here"))
	})

	It("sends a repository's credentials to a submodule at its origin only: never over http when it is reached over https", func() {
		const user, password = "bot", "s3cr3t"
		private, err := gitserver.Start(GinkgoT().TempDir(), gitserver.Options{Username: user, Password: password, TLS: true})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(private.Close)
		served, err := url.Parse(private.HTTPURL("x"))
		Expect(err).NotTo(HaveOccurred())
		probe := listenForBoth(served.Host)
		child, err := private.NewRepoWith("child", map[string]string{"lib.yaml": "lib"})
		Expect(err).NotTo(HaveOccurred())
		parent, err := private.NewRepo("parent")
		Expect(err).NotTo(HaveOccurred())
		Expect(parent.Write(map[string]string{"app.yaml": "app"})).To(Succeed())
		_, err = parent.Git("-c", "protocol.file.allow=always", "submodule", "--quiet", "add", "../"+child.Name+".git", "vendor/child")
		Expect(err).NotTo(HaveOccurred())
		downgraded := "http://" + probe.addr + "/" + child.Name + ".git" // the same host and port, without TLS
		Expect(os.WriteFile(filepath.Join(parent.Work, ".gitmodules"), []byte("[submodule \"child\"]\n\tpath = vendor/child\n\turl = "+downgraded+"\n"), 0o644)).To(Succeed())
		_, err = parent.Commit("with a submodule")
		Expect(err).NotTo(HaveOccurred())
		Expect(parent.Push()).To(Succeed())

		_, err = newSource().Get(ctx, git.Request{URL: "https://" + probe.addr + "/" + parent.Name + ".git", Checkout: git.Checkout{Submodules: true},
			Auth: &git.Auth{Username: user, Password: password, CA: private.CA()}})
		Expect(errorAs[*git.SubmoduleError](err).Path).To(Equal("vendor/child"), "the probe answers http with 404")
		Expect(probe.plain()).NotTo(BeEmpty(), "the submodule was asked for over http")
		Expect(probe.plain()).To(HaveEach(BeEmpty()), "with no Authorization header")
	})

	It("never echoes a token written as a URL's user name", func() {
		_, err := newSource().Get(ctx, git.Request{URL: "https://ghp_T0KEN@example.com/org/r.git"})
		Expect(errorAs[*git.RequestError](err).Field).To(Equal("url"))
		Expect(err.Error()).To(ContainSubstring("https://example.com/org/r.git holds credentials"))
		Expect(err.Error()).NotTo(ContainSubstring("T0KEN"))
	})
})

// listenSilently accepts connections on a new local address and never
// says anything on them.
func listenSilently() string {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	accepted := make(chan net.Conn, 16)
	go func() {
		defer close(accepted)
		for {
			conn, err := l.Accept()
			if err != nil {
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
	return l.Addr().String()
}

// bothProbe listens on one port for TLS and plain HTTP: TLS connections go
// on to a server, plain HTTP requests are answered 404 and their
// Authorization headers kept.
type bothProbe struct {
	addr string
	mu   sync.Mutex
	auth []string
}

func (p *bothProbe) plain() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.auth...)
}

func listenForBoth(tlsServer string) *bothProbe {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(l.Close)
	p := &bothProbe{addr: l.Addr().String()}
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go p.serve(conn, tlsServer)
		}
	}()
	return p
}

func (p *bothProbe) serve(conn net.Conn, tlsServer string) {
	defer conn.Close()
	in := bufio.NewReader(conn)
	first, err := in.Peek(1)
	if err != nil {
		return
	}
	if first[0] == 0x16 { // a TLS handshake record
		up, err := net.Dial("tcp", tlsServer)
		if err != nil {
			return
		}
		defer up.Close()
		go func() { _, _ = io.Copy(up, in) }()
		_, _ = io.Copy(conn, up)
		return
	}
	req, err := http.ReadRequest(in)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.auth = append(p.auth, req.Header.Get("Authorization"))
	p.mu.Unlock()
	_, _ = io.WriteString(conn, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
}
