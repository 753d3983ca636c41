package gitinputs_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
	"github.com/wavekit-dev/wavekit/internal/inputs/gitinputs"
	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

// repos counts the repositories made, for their names.
var repos int

var _ = Describe("Git inputs", func() {
	var source *gitinputs.Source
	fresh := inputs.ReadOptions{}
	hour := inputs.ReadOptions{Interval: time.Hour}

	BeforeEach(func() {
		cache, err := fetch.NewCache(GinkgoT().TempDir(), 1<<30)
		Expect(err).NotTo(HaveOccurred())
		source = gitinputs.New(git.New(cache), secrets{"team-a/git": {"username": []byte("reader"), "password": []byte("git-password-value")}})
	})

	newRepo := func(s *gitserver.Server, files map[string]string) (*gitserver.Repo, string) {
		GinkgoHelper()
		repos++
		name := fmt.Sprintf("repo-%d", repos)
		repo, err := s.NewRepoWith(name, files)
		Expect(err).NotTo(HaveOccurred())
		return repo, s.HTTPURL(name)
	}
	dirs := func(url string, paths, exclude []string) v1alpha1.InputSource {
		return v1alpha1.InputSource{GitDirectories: &v1alpha1.GitDirectoriesInput{
			GitInputRepository: v1alpha1.GitInputRepository{URL: url}, Paths: paths, Exclude: exclude}}
	}
	ids := func(in []inputs.Input) []string {
		out := []string{}
		for _, i := range in {
			out = append(out, i.ID)
		}
		return out
	}

	It("makes an input of each matching directory, and follows the folders added and removed", func() {
		repo, url := newRepo(server, map[string]string{
			"apps/web/kustomization.yaml": "x", "apps/api/kustomization.yaml": "x", "apps/legacy/README": "x",
			"apps/web/overlays/prod/k.yaml": "x", "README.md": "x"})
		got, err := source.Read(ctx, "team-a", dirs(url, []string{"apps/*"}, []string{"apps/legacy"}), fresh)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(got)).To(Equal([]string{"apps-api", "apps-web"}))
		Expect(got[1].Fields).To(And(HaveKeyWithValue("path", "apps/web"), HaveKeyWithValue("name", "web"),
			HaveKeyWithValue("revision", HavePrefix("main@sha1:"))))

		Expect(repo.Write(map[string]string{"apps/shop/kustomization.yaml": "x"})).To(Succeed())
		_, err = repo.Git("rm", "-r", "--quiet", "apps/api")
		Expect(err).NotTo(HaveOccurred())
		_, err = repo.Commit("shop in, api out")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Push()).To(Succeed())
		got, err = source.Read(ctx, "team-a", dirs(url, []string{"apps/*"}, []string{"apps/legacy"}), fresh)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(got)).To(ConsistOf("apps-shop", "apps-web"))

		got, err = source.Read(ctx, "team-a", dirs(url, []string{"apps/**/prod"}, nil), fresh)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(got)).To(Equal([]string{"apps-web-overlays-prod"}), "** crosses path elements")
	})

	It("makes inputs of YAML and JSON files: an object one, a list one per entry, an entry's own id first", func() {
		_, url := newRepo(server, map[string]string{
			"tenants/alpha.yaml": "size: small\nregion: eu\n",
			"tenants/teams.json": `[{"id": "blue", "size": "large"}, {"size": "medium"}]`,
			"tenants/notes.txt":  "not an input",
		})
		got, err := source.Read(ctx, "team-a", v1alpha1.InputSource{GitFiles: &v1alpha1.GitFilesInput{
			GitInputRepository: v1alpha1.GitInputRepository{URL: url}, Paths: []string{"tenants/*.yaml", "tenants/*.json"}}}, fresh)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(got)).To(ConsistOf("tenants-alpha", "blue", "tenants-teams-1"))
		for _, in := range got {
			if in.ID == "tenants-alpha" {
				Expect(in.Fields).To(And(HaveKeyWithValue("size", "small"), HaveKeyWithValue("region", "eu"),
					HaveKeyWithValue("path", "tenants/alpha.yaml"), HaveKeyWithValue("revision", HavePrefix("main@sha1:"))))
			}
		}
	})

	It("gives an error naming the file and no inputs when one file does not parse, or is too large", func() {
		_, url := newRepo(server, map[string]string{"t/good.yaml": "a: 1\n", "t/bad.yaml": "a: [1\n"})
		got, err := source.Read(ctx, "team-a", v1alpha1.InputSource{GitFiles: &v1alpha1.GitFilesInput{
			GitInputRepository: v1alpha1.GitInputRepository{URL: url}, Paths: []string{"t/*.yaml"}}}, fresh)
		Expect(err).To(MatchError(ContainSubstring("gitFiles: t/bad.yaml at main@sha1:")))
		Expect(got).To(BeNil())

		_, url = newRepo(server, map[string]string{"t/big.yaml": "a: " + strings.Repeat("x", 1<<20) + "\n"})
		_, err = source.Read(ctx, "team-a", v1alpha1.InputSource{GitFiles: &v1alpha1.GitFilesInput{
			GitInputRepository: v1alpha1.GitInputRepository{URL: url}, Paths: []string{"t/*.yaml"}}}, fresh)
		Expect(err).To(MatchError(ContainSubstring("is larger than 1 MiB")))
	})

	It("looks at the repository once per interval for twenty sets, and again for a read asked since later", func() {
		repo, url := newRepo(server, map[string]string{"apps/a/x": "x"})
		_, err := source.Read(ctx, "team-a", dirs(url, []string{"apps/*"}, nil), hour)
		Expect(err).NotTo(HaveOccurred())
		first := server.Counts(repo.Name)
		Expect(first.UploadPacks).To(Equal(1))
		for range 19 {
			_, err := source.Read(ctx, "team-a", dirs(url, []string{"apps/*"}, nil), hour)
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(server.Counts(repo.Name)).To(Equal(first), "nineteen more sets, no request")
		_, err = source.Read(ctx, "team-a", dirs(url, []string{"apps/*"}, nil), inputs.ReadOptions{Interval: time.Hour, Since: time.Now()})
		Expect(err).NotTo(HaveOccurred())
		Expect(server.Counts(repo.Name).InfoRefs).To(Equal(first.InfoRefs+1), "a look, and no fetch: the commit is the same")
		Expect(server.Counts(repo.Name).UploadPacks).To(Equal(1))
	})

	It("reads a private repository with its namespace's Secret only", func() {
		_, url := newRepo(private, map[string]string{"apps/a/x": "x"})
		spec := dirs(url, []string{"apps/*"}, nil)
		spec.GitDirectories.SecretRef = &v1alpha1.LocalObjectReference{Name: "git"}
		got, err := source.Read(ctx, "team-a", spec, hour)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(got)).To(Equal([]string{"apps-a"}))
		_, err = source.Read(ctx, "team-b", spec, hour)
		Expect(err).To(MatchError(ContainSubstring("reading Secret team-b/git")), "no riding on team-a's look")
		Expect(err.Error()).NotTo(ContainSubstring("git-password-value"))
	})

	It("checks the allow-lists before it fetches anything", func() {
		repo, url := newRepo(server, map[string]string{"apps/a/x": "x"})
		cache, err := fetch.NewCache(GinkgoT().TempDir(), 1<<30)
		Expect(err).NotTo(HaveOccurred())
		refusing := gitinputs.New(git.New(cache), secrets{}, gitinputs.WithAllow(func(_ context.Context, namespace, u string) error {
			return fmt.Errorf("%s is not an allowed source for %s", u, namespace)
		}))
		_, err = refusing.Read(ctx, "team-a", dirs(url, []string{"apps/*"}, nil), fresh)
		Expect(err).To(MatchError(ContainSubstring("is not an allowed source for team-a")))
		Expect(server.Counts(repo.Name).InfoRefs).To(BeZero())
	})
})
