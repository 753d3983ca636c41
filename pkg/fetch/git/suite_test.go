package git_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

func TestGit(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "git")
}

var (
	ctx    = context.Background()
	server *gitserver.Server
)

var _ = BeforeSuite(func() {
	var err error
	server, err = gitserver.Start(GinkgoT().TempDir(), gitserver.Options{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(server.Close)
})

// newSource returns a Source over a new cache.
func newSource(opts ...git.Option) *git.Source {
	cache, err := fetch.NewCache(GinkgoT().TempDir(), 1<<30)
	Expect(err).NotTo(HaveOccurred())
	return git.New(cache, opts...)
}

// newRepo makes a served repository with files in a first commit on main,
// pushed.
func newRepo(name string, files map[string]string) *gitserver.Repo {
	GinkgoHelper()
	repo, err := server.NewRepoWith(name, files)
	Expect(err).NotTo(HaveOccurred())
	return repo
}

// commit writes files, commits and pushes, and returns the commit.
func commit(repo *gitserver.Repo, files map[string]string) string {
	GinkgoHelper()
	sha, err := repo.CommitAndPush(files)
	Expect(err).NotTo(HaveOccurred())
	return sha
}

func read(tree git.Tree, name string) string {
	data, err := os.ReadFile(filepath.Join(tree.Dir, filepath.FromSlash(name)))
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}

func errorAs[T error](err error) T {
	var target T
	ExpectWithOffset(1, errors.As(err, &target)).To(BeTrue(), "error %v is not a %T", err, target)
	return target
}
