package git_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

var _ = Describe("a ComponentSet over the folders of a repository", func() {
	It("makes a member of each folder, adds one for a new folder and removes only the member of a folder removed", func() {
		files := site("apps/web", "1")
		for k, v := range site("apps/api", "1") {
			files[k] = v
		}
		files["apps/README.md"] = "not a folder"
		repo := newRepo(server, files)
		url := server.HTTPURL(repo.Name)
		path := createReceiver(teamA, "folders", "ComponentSet", "folders")
		set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "folders"}, Spec: v1alpha1.ComponentSetSpec{
			Inputs: &v1alpha1.Inputs{
				InputSource: v1alpha1.InputSource{GitDirectories: &v1alpha1.GitDirectoriesInput{
					GitInputRepository: v1alpha1.GitInputRepository{URL: url}, Paths: []string{"apps/*"}}},
				Name: "folder-${input.name}", Interval: &metav1.Duration{Duration: time.Hour}, ValuesKey: "-",
			},
			Template: v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{
				Git: &v1alpha1.GitSource{URL: url, Path: "${input.path}", Interval: &metav1.Duration{Duration: time.Hour}}}},
		}}
		Expect(env.Client.Create(ctx, set)).To(Succeed())
		DeferCleanup(func() { _ = env.Client.Delete(ctx, set) })
		web, api := setMember(teamA, "folder-web"), setMember(teamA, "folder-api")
		Eventually(data(web, "version")).WithTimeout(timeout).Should(Equal("1"))
		Eventually(data(api, "version")).WithTimeout(timeout).Should(Equal("1"))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(web), web)).To(Succeed())
		kept := web.UID

		Expect(repo.Write(site("apps/shop", "1"))).To(Succeed())
		_, err := repo.Git("rm", "-r", "--quiet", "apps/api")
		Expect(err).NotTo(HaveOccurred())
		_, err = repo.Commit("shop in, api out")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Push()).To(Succeed())
		code, _ := postGitHubPush(path, "folders", url, 1)
		Expect(code).To(Equal(200))

		shop := setMember(teamA, "folder-shop")
		Eventually(data(shop, "version")).WithTimeout(timeout).Should(Equal("1"))
		Eventually(func() error { return env.Client.Get(ctx, client.ObjectKeyFromObject(api), api) }).WithTimeout(timeout).
			Should(MatchError(ContainSubstring("not found")))
		Eventually(data(api, "version")).WithTimeout(timeout).Should(BeEmpty(), "its objects went with it")
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(web), web)).To(Succeed())
		Expect(web.UID).To(Equal(kept), "the other folder's member was not touched")
		Expect(data(web, "version")()).To(Equal("1"))
	})
})

// setMember is a Component of namespace to read.
func setMember(namespace, name string) *v1alpha1.Component {
	return &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}
