package git_test

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

var _ = Describe("a commit", func() {
	It("is fetched once for every sparse set that needs it, each checked out of that one fetch", func() {
		repo := newRepo("monorepo-sets", map[string]string{"team-a/cm.yaml": "a1", "team-b/cm.yaml": "b1", "team-c/cm.yaml": "c1"})
		src := newSource()
		sets := [][]string{{"team-a"}, {"team-b"}, {"team-c"}}
		getAll := func(sets [][]string) []git.Tree {
			GinkgoHelper()
			trees := make([]git.Tree, len(sets))
			var wg sync.WaitGroup
			for i, set := range sets {
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer GinkgoRecover()
					var err error
					trees[i], err = src.Get(ctx, git.Request{URL: server.HTTPURL(repo.Name), Checkout: git.Checkout{SparsePaths: set}})
					Expect(err).NotTo(HaveOccurred())
				}()
			}
			wg.Wait()
			return trees
		}

		before := server.Counts(repo.Name)
		trees := getAll(sets)
		Expect(server.Counts(repo.Name).UploadPacks-before.UploadPacks).To(Equal(1), "one fetch of the commit for three sparse sets")
		Expect(src.Stats().Fetches).To(Equal(int64(1)))
		for i, team := range []string{"team-a", "team-b", "team-c"} {
			Expect(trees[i].Commit).To(Equal(trees[0].Commit))
			Expect(read(trees[i], team+"/cm.yaml")).To(Equal(team[len(team)-1:] + "1"))
			for _, other := range []string{"team-a", "team-b", "team-c"} {
				if other != team {
					Expect(filepath.Join(trees[i].Dir, other)).NotTo(BeADirectory(), "only its own set is written")
				}
			}
		}

		By("a set asked later is checked out of the same fetch")
		later, err := src.Get(ctx, git.Request{URL: server.HTTPURL(repo.Name), Checkout: git.Checkout{SparsePaths: []string{"team-a", "team-c"}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(read(later, "team-c/cm.yaml")).To(Equal("c1"))
		full, err := src.Get(ctx, git.Request{URL: server.HTTPURL(repo.Name)})
		Expect(err).NotTo(HaveOccurred())
		Expect(read(full, "team-b/cm.yaml")).To(Equal("b1"))
		Expect(server.Counts(repo.Name).UploadPacks - before.UploadPacks).To(Equal(1))

		By("a new commit: one more fetch for all of them")
		sha := commit(repo, map[string]string{"team-b/cm.yaml": "b2"})
		trees = getAll(sets)
		Expect(trees[1].Commit).To(Equal(sha))
		Expect(read(trees[1], "team-b/cm.yaml")).To(Equal("b2"))
		Expect(server.Counts(repo.Name).UploadPacks - before.UploadPacks).To(Equal(2))
		Expect(src.Stats().Fetches).To(Equal(int64(2)))
	})

	It("over the size limit is refused without a new download each time it is asked for", func() {
		random := make([]byte, 256<<10)
		_, _ = rand.Read(random)
		repo := newRepo("large-again", map[string]string{"big": hex.EncodeToString(random), "small/f": "x"})
		src := newSource(git.WithMaxSize(64 << 10))
		req := git.Request{URL: server.HTTPURL(repo.Name)}
		_, first := src.Get(ctx, req)
		Expect(errorAs[*fetch.SizeLimitError](first).What).To(Equal("fetch"))
		before := server.Counts(repo.Name)

		for range 3 {
			_, err := src.Get(ctx, req)
			Expect(err).To(MatchError(first.Error()), "the same refusal")
		}
		_, err := src.Get(ctx, git.Request{URL: req.URL, Checkout: git.Checkout{SparsePaths: []string{"small"}}})
		Expect(errorAs[*fetch.SizeLimitError](err).What).To(Equal("fetch"), "the commit is refused whatever is checked out of it")
		after := server.Counts(repo.Name)
		Expect(after.UploadPacks).To(Equal(before.UploadPacks), "no download of a commit refused already")
		Expect(after.InfoRefs).To(BeNumerically(">", before.InfoRefs), "each Get still looks for a new commit")
		Expect(src.Stats().Fetches).To(Equal(int64(1)))

		By("a new commit within the limit is fetched")
		commit(repo, map[string]string{"big": "small now"})
		tree, err := src.Get(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(read(tree, "big")).To(Equal("small now"))
	})

	It("whose checked-out tree is over the size limit is refused again without a download", func() {
		copies := map[string]string{}
		for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
			copies["copy-"+name] = string(make([]byte, 32<<10)) // one blob of 32 KiB, eight times
		}
		repo := newRepo("copies-again", copies)
		src := newSource(git.WithMaxSize(64 << 10))
		req := git.Request{URL: server.HTTPURL(repo.Name)}
		_, first := src.Get(ctx, req)
		Expect(errorAs[*fetch.SizeLimitError](first).What).To(Equal("checked-out tree"))
		before := server.Counts(repo.Name)
		_, err := src.Get(ctx, req)
		Expect(err).To(MatchError(first.Error()))
		Expect(server.Counts(repo.Name).UploadPacks).To(Equal(before.UploadPacks))
	})
})
