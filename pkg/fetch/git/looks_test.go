package git_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

var _ = Describe("shared looks", func() {
	It("fetch what an older shared look saw, where the remote serves commits by their SHA-1", func() {
		repo := newRepo("stale-look", map[string]string{"f": "one"})
		src := newSource()
		url := server.HTTPURL(repo.Name)
		first, err := src.Get(ctx, git.Request{URL: url, MaxAge: time.Hour, Consumer: "a"})
		Expect(err).NotTo(HaveOccurred())
		commit(repo, map[string]string{"f": "two"})

		// Another tree of the same repository (other ignore rules), on
		// the look that names the commit main has left: checked out of
		// the commit the first request fetched.
		tree, err := src.Get(ctx, git.Request{URL: url, MaxAge: time.Hour, Consumer: "b", Checkout: git.Checkout{Ignore: "*.md"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(tree.Commit).To(Equal(first.Commit))
		Expect(read(tree, "f")).To(Equal("one"))
		Expect(src.Stats().Lookups).To(Equal(int64(1)))
	})

	It("look again when the ref an older look resolved moved, where the remote serves refs only", func() {
		repo := newRepo("stale-look-refs-only", map[string]string{"f": "one"})
		bare := filepath.Join(server.Root, repo.Name+".git")
		out, err := exec.Command("git", "-C", bare, "config", "uploadpack.allowReachableSHA1InWant", "false").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(repo.Tag("v0")).To(Succeed())
		commit(repo, map[string]string{"f": "one more"})
		src := newSource()
		url := server.HTTPURL(repo.Name)
		// The look sees main; only the tag's commit is fetched, so that
		// the next request's commit of main is fetched by its name.
		_, err = src.Get(ctx, git.Request{URL: url, Ref: git.Ref{Tag: "v0"}, MaxAge: time.Hour, Consumer: "a"})
		Expect(err).NotTo(HaveOccurred())
		second := commit(repo, map[string]string{"f": "two"})

		tree, err := src.Get(ctx, git.Request{URL: url, MaxAge: time.Hour, Consumer: "b", Checkout: git.Checkout{Ignore: "*.md"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(tree.Commit).To(Equal(second))
		Expect(read(tree, "f")).To(Equal("two"))
		Expect(src.Stats().Lookups).To(Equal(int64(2)), "the stale look, and one more")
	})

	It("serves a look to those who wait for it when the request that started it gives up", func() {
		repo := newRepo("first-gives-up", map[string]string{"f": "x"})
		target, err := url.Parse(server.HTTPURL(""))
		Expect(err).NotTo(HaveOccurred())
		target.Path = ""
		arrived, release := make(chan struct{}, 16), make(chan struct{})
		var once sync.Once
		proxy := httputil.NewSingleHostReverseProxy(target)
		gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			arrived <- struct{}{}
			<-release // the first look waits here
			proxy.ServeHTTP(w, r)
		}))
		DeferCleanup(func() { once.Do(func() { close(release) }); gate.Close() })
		gated := gate.URL + "/" + repo.Name + ".git"
		src := newSource()

		firstCtx, giveUp := context.WithCancel(ctx)
		first := make(chan error, 1)
		go func() {
			_, err := src.Get(firstCtx, git.Request{URL: gated, MaxAge: time.Hour, Consumer: "first"})
			first <- err
		}()
		Eventually(arrived).Should(Receive(), "the first request's look reached the remote")
		second := make(chan error, 1)
		go func() {
			_, err := src.Get(ctx, git.Request{URL: gated, MaxAge: time.Hour, Consumer: "second"})
			second <- err
		}()
		giveUp()
		Eventually(first).Should(Receive(MatchError(context.Canceled)), "the first request stops waiting")
		Consistently(second).WithTimeout(100*time.Millisecond).ShouldNot(Receive(), "the second one still waits for the look")
		once.Do(func() { close(release) })
		var got error
		Eventually(second).WithTimeout(time.Minute).Should(Receive(&got))
		Expect(got).NotTo(HaveOccurred(), "the look was not ended by the first request's context")
		Expect(src.Stats().Lookups).To(Equal(int64(1)))
	})

	It("tell a repository's consumers when a ref they use moves, not when another one does", func() {
		repo := newRepo("moves", map[string]string{"f": "one"})
		var mu sync.Mutex
		var told []string
		src := newSource(git.WithOnChange(func(c []string) { mu.Lock(); told = append(told, c...); mu.Unlock() }))
		url := server.HTTPURL(repo.Name)
		for who, ref := range map[string]git.Ref{"main": {Branch: "main"}, "head": {}, "tags": {SemVer: ">=1"}, "pull": {Name: "refs/pull/1/head"}} {
			if who == "pull" {
				_, err := repo.Git("push", "--quiet", "origin", "HEAD:refs/pull/1/head")
				Expect(err).NotTo(HaveOccurred())
			}
			if who == "tags" {
				Expect(repo.Tag("v1.0.0")).To(Succeed())
				Expect(repo.Push()).To(Succeed())
			}
			_, err := src.Get(ctx, git.Request{URL: url, Ref: ref, Consumer: who})
			Expect(err).NotTo(HaveOccurred(), who)
		}
		lookAgain := func() []string {
			GinkgoHelper()
			mu.Lock()
			told = nil
			mu.Unlock()
			_, err := src.Get(ctx, git.Request{URL: url, Consumer: "looker", Ref: git.Ref{Branch: "main"}})
			Expect(err).NotTo(HaveOccurred())
			mu.Lock()
			defer mu.Unlock()
			return told
		}
		Expect(lookAgain()).To(BeEmpty(), "nothing moved")

		_, err := repo.Git("push", "--quiet", "--force", "origin", "HEAD:refs/pull/2/head")
		Expect(err).NotTo(HaveOccurred())
		Expect(lookAgain()).To(BeEmpty(), "a pull request's ref nobody uses")

		commit(repo, map[string]string{"f": "two"})
		Expect(lookAgain()).To(ConsistOf("main", "head"))

		Expect(repo.Tag("v2.0.0")).To(Succeed())
		Expect(repo.Push()).To(Succeed())
		Expect(lookAgain()).To(ConsistOf("tags"))

		_, err = repo.Git("push", "--quiet", "--force", "origin", "HEAD:refs/pull/1/head")
		Expect(err).NotTo(HaveOccurred())
		Expect(lookAgain()).To(ConsistOf("pull"))
	})
})
