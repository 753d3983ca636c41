package git_test

import (
	"path/filepath"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

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
})
