package git_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

var _ = Describe("Source", func() {
	It("follows a branch: a pushed commit is fetched once, an unchanged one never", func() {
		repo := newRepo("follow", map[string]string{"app/cm.yaml": "one"})
		src := newSource()
		req := git.Request{URL: server.HTTPURL(repo.Name), Ref: git.Ref{Branch: "main"}}
		first, err := src.Get(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(read(first, "app/cm.yaml")).To(Equal("one"))
		Expect(first.Revision).To(Equal("main@sha1:" + first.Commit))
		Expect(first.Identity).To(Equal("commit " + first.Commit))
		Expect(src.Stats()).To(Equal(git.Stats{Lookups: 1, Fetches: 1}))

		again, err := src.Get(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Commit).To(Equal(first.Commit))
		Expect(src.Stats()).To(Equal(git.Stats{Lookups: 2, Fetches: 1}), "an unchanged commit is not fetched again")

		sha := commit(repo, map[string]string{"app/cm.yaml": "two"})
		next, err := src.Get(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(next.Commit).To(Equal(sha))
		Expect(read(next, "app/cm.yaml")).To(Equal("two"))
		Expect(src.Stats()).To(Equal(git.Stats{Lookups: 3, Fetches: 2}))
	})

	It("makes one look per remote for many requests that accept its age, and one fetch", func() {
		repo := newRepo("shared", map[string]string{"cm.yaml": "one"})
		var told []string
		var mu sync.Mutex
		src := newSource(git.WithOnChange(func(c []string) { mu.Lock(); told = append(told, c...); mu.Unlock() }))
		before := server.Counts(repo.Name)
		var wg sync.WaitGroup
		for i := range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer GinkgoRecover()
				_, err := src.Get(ctx, git.Request{URL: server.HTTPURL(repo.Name), MaxAge: time.Minute, Consumer: string(rune('a' + i%26))})
				Expect(err).NotTo(HaveOccurred())
			}()
		}
		wg.Wait()
		Expect(src.Stats()).To(Equal(git.Stats{Lookups: 1, Fetches: 1}))
		after := server.Counts(repo.Name)
		// The look is one advertisement; the fetch makes its own, then the pack.
		Expect(after.InfoRefs - before.InfoRefs).To(Equal(2))
		Expect(after.UploadPacks - before.UploadPacks).To(Equal(1))

		By("a look that finds the refs moved tells the other consumers")
		commit(repo, map[string]string{"cm.yaml": "two"})
		_, err := src.Get(ctx, git.Request{URL: server.HTTPURL(repo.Name), MaxAge: 0, Consumer: "a"})
		Expect(err).NotTo(HaveOccurred())
		mu.Lock()
		defer mu.Unlock()
		Expect(told).To(ContainElements("b", "z"))
	})

	It("takes the highest tag a semver range matches, and moves when a higher one is pushed", func() {
		repo := newRepo("semver", map[string]string{"v": "1.0.0"})
		Expect(repo.Tag("v1.0.0")).To(Succeed())
		commit(repo, map[string]string{"v": "1.2.0"})
		Expect(repo.AnnotatedTag("v1.2.0")).To(Succeed())
		commit(repo, map[string]string{"v": "2.0.0"})
		Expect(repo.Tag("v2.0.0")).To(Succeed())
		Expect(repo.Push()).To(Succeed())
		src := newSource()
		req := git.Request{URL: server.HTTPURL(repo.Name), Ref: git.Ref{SemVer: "^1.0"}}
		tree, err := src.Get(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(read(tree, "v")).To(Equal("1.2.0"))
		Expect(tree.Revision).To(HavePrefix("v1.2.0@sha1:"))

		commit(repo, map[string]string{"v": "1.3.0"})
		Expect(repo.Tag("1.3.0")).To(Succeed())
		Expect(repo.Push()).To(Succeed())
		tree, err = src.Get(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(read(tree, "v")).To(Equal("1.3.0"))

		By("a range nothing matches lists the tags, highest first")
		_, err = src.Get(ctx, git.Request{URL: server.HTTPURL(repo.Name), Ref: git.Ref{SemVer: ">=3"}})
		notFound := errorAs[*git.RefNotFoundError](err)
		Expect(notFound.Tags).To(Equal([]string{"v2.0.0", "1.3.0", "v1.2.0", "v1.0.0"}))
		Expect(err.Error()).To(ContainSubstring(`no the highest tag matching ">=3"`))

		By("a range that is none is refused as such, before any connection")
		before := src.Stats()
		_, err = src.Get(ctx, git.Request{URL: server.HTTPURL(repo.Name), Ref: git.Ref{SemVer: "one point two"}})
		Expect(errorAs[*git.RequestError](err).Field).To(Equal("ref.semver"))
		Expect(err).To(MatchError(ContainSubstring(`"one point two" is not a semver range`)))
		Expect(src.Stats()).To(Equal(before))
	})

	It("takes a tag, a ref name, a commit, and a commit within a branch", func() {
		repo := newRepo("refs", map[string]string{"f": "one"})
		one, err := repo.Git("rev-parse", "HEAD")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Tag("one")).To(Succeed())
		two := commit(repo, map[string]string{"f": "two"})
		_, err = repo.Git("push", "--quiet", "origin", "HEAD:refs/pull/1/head")
		Expect(err).NotTo(HaveOccurred())
		commit(repo, map[string]string{"f": "three"})
		Expect(repo.Push()).To(Succeed())
		src := newSource()
		url := server.HTTPURL(repo.Name)
		for ref, want := range map[git.Ref]string{
			{Tag: "one"}:                  "one",
			{Name: "refs/pull/1/head"}:    "two",
			{Commit: one}:                 "one",
			{Branch: "main", Commit: two}: "two",
			{Branch: "main", Tag: "one"}:  "one",
			{}:                            "three",
		} {
			tree, err := src.Get(ctx, git.Request{URL: url, Ref: ref})
			Expect(err).NotTo(HaveOccurred(), "%v", ref)
			Expect(read(tree, "f")).To(Equal(want), "%v", ref)
		}
		tree, err := src.Get(ctx, git.Request{URL: url, Ref: git.Ref{Branch: "main", Commit: two}})
		Expect(err).NotTo(HaveOccurred())
		Expect(tree.Revision).To(Equal("main@sha1:" + two))

		By("an unknown branch is refused with the branches there are")
		_, err = src.Get(ctx, git.Request{URL: url, Ref: git.Ref{Branch: "nope"}})
		Expect(errorAs[*git.RefNotFoundError](err).Branches).To(Equal([]string{"main"}))
		Expect(err.Error()).To(ContainSubstring("no branch nope (branches: main; tags: one)"))
	})

	It("follows a force-push that rewrites the history", func() {
		repo := newRepo("rewrite", map[string]string{"f": "one"})
		commit(repo, map[string]string{"f": "two"})
		src := newSource()
		req := git.Request{URL: server.HTTPURL(repo.Name)}
		tree, err := src.Get(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(read(tree, "f")).To(Equal("two"))
		_, err = repo.Git("reset", "--quiet", "--hard", "HEAD~1")
		Expect(err).NotTo(HaveOccurred())
		rewritten := commit(repo, map[string]string{"f": "rewritten"})
		tree, err = src.Get(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(tree.Commit).To(Equal(rewritten))
		Expect(read(tree, "f")).To(Equal("rewritten"))
	})

	It("writes only the sparse paths, and a commit elsewhere keeps their identity", func() {
		repo := newRepo("monorepo", map[string]string{"team-a/cm.yaml": "a", "team-b/cm.yaml": "b", "README": "r"})
		src := newSource()
		req := git.Request{URL: server.HTTPURL(repo.Name), Checkout: git.Checkout{SparsePaths: []string{"team-a"}}}
		first, err := src.Get(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(read(first, "team-a/cm.yaml")).To(Equal("a"))
		Expect(filepath.Join(first.Dir, "team-b")).NotTo(BeADirectory())
		Expect(filepath.Join(first.Dir, "README")).NotTo(BeAnExistingFile())
		Expect(first.Identity).To(Equal("content " + first.Digest))

		commit(repo, map[string]string{"team-b/cm.yaml": "b2"})
		other, err := src.Get(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(other.Commit).NotTo(Equal(first.Commit))
		Expect(other.Identity).To(Equal(first.Identity))

		commit(repo, map[string]string{"team-a/cm.yaml": "a2"})
		mine, err := src.Get(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(mine.Identity).NotTo(Equal(first.Identity))
	})

	It("leaves out what the ignore rules name", func() {
		repo := newRepo("ignore", map[string]string{"deploy/cm.yaml": "x", "deploy/notes.md": "n", "docs/a.md": "d"})
		tree, err := newSource().Get(ctx, git.Request{URL: server.HTTPURL(repo.Name), Checkout: git.Checkout{Ignore: "# docs\n/docs\n*.md\n"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(read(tree, "deploy/cm.yaml")).To(Equal("x"))
		Expect(filepath.Join(tree.Dir, "deploy", "notes.md")).NotTo(BeAnExistingFile())
		Expect(filepath.Join(tree.Dir, "docs")).NotTo(BeADirectory())
	})

	It("refuses a fetch over the size limit, and a tree with a link out of it", func() {
		random := make([]byte, 256<<10)
		_, _ = rand.Read(random)
		repo := newRepo("large", map[string]string{"big": hex.EncodeToString(random)})
		_, err := newSource(git.WithMaxSize(64<<10)).Get(ctx, git.Request{URL: server.HTTPURL(repo.Name)})
		limit := errorAs[*fetch.SizeLimitError](err)
		Expect(limit.What).To(Equal("fetch"))
		Expect(limit.Limit).To(Equal(int64(64 << 10)))
		Expect(git.IsTransient(err)).To(BeFalse())

		bomb := newRepo("compressed", map[string]string{"big": strings.Repeat("0123456789abcdef", 64<<10)})
		_, err = newSource(git.WithMaxSize(64<<10)).Get(ctx, git.Request{URL: server.HTTPURL(bomb.Name)})
		Expect(errorAs[*fetch.SizeLimitError](err).What).To(Equal("an object (1 MiB inflated) in the pack"), "a small pack of a large file")

		copies := map[string]string{}
		for i := range 8 {
			copies[fmt.Sprintf("copy-%d", i)] = strings.Repeat("0123456789abcdef", 2<<10) // one blob of 32 KiB, eight times
		}
		copied := newRepo("copies", copies)
		_, err = newSource(git.WithMaxSize(64<<10)).Get(ctx, git.Request{URL: server.HTTPURL(copied.Name)})
		Expect(errorAs[*fetch.SizeLimitError](err).What).To(Equal("checked-out tree"), "a small pack of one file written many times")

		links, err := server.NewRepo("links")
		Expect(err).NotTo(HaveOccurred())
		Expect(links.Write(map[string]string{"app/cm.yaml": "x"})).To(Succeed())
		Expect(os.Symlink("cm.yaml", filepath.Join(links.Work, "app", "inside"))).To(Succeed())
		Expect(os.Symlink("app", filepath.Join(links.Work, "here"))).To(Succeed())
		_, err = links.Commit("links")
		Expect(err).NotTo(HaveOccurred())
		Expect(links.Push()).To(Succeed())
		tree, err := newSource().Get(ctx, git.Request{URL: server.HTTPURL(links.Name)})
		Expect(err).NotTo(HaveOccurred())
		Expect(read(tree, "here/inside")).To(Equal("x"))

		Expect(os.Symlink("../../etc/passwd", filepath.Join(links.Work, "app", "out"))).To(Succeed())
		Expect(os.Symlink(".", filepath.Join(links.Work, "app", "dot"))).To(Succeed())
		Expect(os.Symlink("here/../..", filepath.Join(links.Work, "up"))).To(Succeed())
		_, err = links.Commit("out")
		Expect(err).NotTo(HaveOccurred())
		Expect(links.Push()).To(Succeed())
		_, err = newSource().Get(ctx, git.Request{URL: server.HTTPURL(links.Name)})
		Expect(errorAs[*git.UnsafeTreeError](err).Reason).To(ContainSubstring("outside the repository"))

		By("a link that stays inside on paper but leaves through another link")
		through, err := server.NewRepo("through-links")
		Expect(err).NotTo(HaveOccurred())
		Expect(through.Write(map[string]string{"f": "x"})).To(Succeed())
		Expect(os.Symlink(".", filepath.Join(through.Work, "sub"))).To(Succeed())
		Expect(os.Symlink("sub/..", filepath.Join(through.Work, "sneaky"))).To(Succeed())
		_, err = through.Commit("through")
		Expect(err).NotTo(HaveOccurred())
		Expect(through.Push()).To(Succeed())
		_, err = newSource().Get(ctx, git.Request{URL: server.HTTPURL(through.Name)})
		Expect(errorAs[*git.UnsafeTreeError](err).Path).To(Equal("sneaky"))
	})

	It("refuses URLs that are not a remote's, or hold credentials, before any connection", func() {
		src := newSource()
		for _, url := range []string{"file:///etc", "/etc", "git@github.com:org/repo.git", "https://user:secret@example.com/r.git", "ssh://git:secret@example.com/r.git"} {
			_, err := src.Get(ctx, git.Request{URL: url})
			Expect(errorAs[*git.RequestError](err).Field).To(Equal("url"), url)
			Expect(err.Error()).NotTo(ContainSubstring("secret"))
		}
		Expect(src.Stats()).To(Equal(git.Stats{}))
	})
})
