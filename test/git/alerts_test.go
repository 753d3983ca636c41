package git_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/fakegithub"
)

var _ = Describe("a GitHub commit status of a Component of a Git repository", func() {
	It("is set on the commit the Component rendered, and on the next one when it moves", func() {
		github := fakegithub.New()
		DeferCleanup(github.Close)
		repo := newRepo(server, site("deploy", "v1"))
		createSecret(teamB, "github-token", map[string][]byte{"token": []byte("ghp_status")})
		provider := &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: teamB, Name: "github"}, Spec: v1alpha1.ProviderSpec{
			Type: v1alpha1.ProviderGitHub, Address: "https://github.com/acme/" + repo.Name, APIURL: github.URL,
			SecretRef: &v1alpha1.LocalSecretReference{Name: "github-token"}}}
		alert := &v1alpha1.Alert{ObjectMeta: metav1.ObjectMeta{Namespace: teamB, Name: "commits"}, Spec: v1alpha1.AlertSpec{
			ProviderRef: v1alpha1.LocalProviderReference{Name: "github"}, EventSources: []v1alpha1.EventSource{{Kind: "Component", Name: "with-status"}}}}
		Expect(env.Client.Create(ctx, provider)).To(Succeed())
		DeferCleanup(func() { _ = env.Client.Delete(ctx, provider) })
		Expect(env.Client.Create(ctx, alert)).To(Succeed())
		DeferCleanup(func() { _ = env.Client.Delete(ctx, alert) })

		c := createComponent(teamB, "with-status", gitSpec(server.HTTPURL(repo.Name), "deploy", every))
		waitVersion(c, "v1")
		statuses := func(sha string) func() []fakegithub.Status {
			return func() []fakegithub.Status { return github.Statuses("acme", repo.Name, sha) }
		}
		succeeded := And(HaveField("State", "success"), HaveField("Context", HavePrefix("component/"+teamB+"/with-status")))
		Eventually(statuses(head(repo))).WithTimeout(timeout).Should(ContainElement(succeeded))

		second := push(repo, site("deploy", "v2"))
		waitVersion(c, "v2")
		Eventually(statuses(second)).WithTimeout(timeout).Should(ContainElement(succeeded))
		Expect(github.Tokens()).To(HaveEach("Bearer ghp_status"))
	})
})
