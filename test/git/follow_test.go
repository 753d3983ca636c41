package git_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

var _ = Describe("a Component of a Git repository", func() {
	It("follows a branch: deploys a pushed commit at its interval, and a force-push that rewrites the history", func() {
		repo := newRepo(server, site("deploy", "v1"))
		c := createComponent(teamA, "follow", gitSpec(server.HTTPURL(repo.Name), "deploy", every))
		waitVersion(c, "v1")
		Expect(revision(c)()).To(Equal("main@sha1:" + head(repo)))

		// Nothing but the interval brings the Component back (the
		// operator's own requeue is 10 minutes): a push shows within a few
		// intervals, or polling stopped.
		within := 15 * every.Duration
		second := push(repo, site("deploy", "v2"))
		Eventually(revision(c)).WithTimeout(within).Should(Equal("main@sha1:"+second), "at the interval of %s", every.Duration)
		waitVersion(c, "v2")

		_, err := repo.Git("reset", "--quiet", "--hard", "HEAD~1")
		Expect(err).NotTo(HaveOccurred())
		rewritten := push(repo, site("deploy", "v2-rewritten"))
		Eventually(revision(c)).WithTimeout(within).Should(Equal("main@sha1:"+rewritten), "at the interval of %s", every.Duration)
		waitVersion(c, "v2-rewritten")
	})

	It("deploys a push at once when a signed GitHub request names its repository, and asks no Component of another one", func() {
		repo := newRepo(server, site("deploy", "v1"))
		other := newRepo(server, site("deploy", "other"))
		hour := &metav1.Duration{Duration: time.Hour}
		c := createComponent(teamB, "pushed", gitSpec(server.HTTPURL(repo.Name), "deploy", hour))
		bystander := createComponent(teamB, "bystander", gitSpec(server.HTTPURL(other.Name), "deploy", hour))
		waitVersion(c, "v1")
		waitVersion(bystander, "other")
		createSecret(teamB, "webhook-token", map[string][]byte{"token": []byte("t0ken")})
		r := &v1alpha1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: teamB, Name: "github"}, Spec: v1alpha1.ReceiverSpec{
			Type: v1alpha1.ReceiverGitHub, SecretRef: v1alpha1.LocalObjectReference{Name: "webhook-token"},
			Resources: []v1alpha1.ReceiverResource{{Kind: "Component", Name: "*"}}}}
		Expect(env.Client.Create(ctx, r)).To(Succeed())
		Eventually(func() string {
			_ = env.Client.Get(ctx, client.ObjectKeyFromObject(r), r)
			return r.Status.WebhookPath
		}).WithTimeout(timeout).Should(HavePrefix("/hook/"))

		var took []time.Duration
		for i := 1; i <= benchRounds(1, 10); i++ {
			version := fmt.Sprintf("v%d", i+1)
			sha := push(repo, site("deploy", version))
			sent := time.Now()
			code, text := postGitHubPush(r.Status.WebhookPath, "t0ken", server.HTTPURL(repo.Name), i)
			Expect(code).To(Equal(200))
			Expect(text).To(Equal("asked 1 objects for a reconcile"))
			Eventually(func() string { return revision(c)() + " " + ready(c)() }).WithTimeout(10 * time.Second).WithPolling(20 * time.Millisecond).
				Should(HavePrefix("main@sha1:" + sha + " True Ready"))
			took = append(took, time.Since(sent))
			Expect(data(c, "version")()).To(Equal(version))
		}
		report("push to Ready through a GitHub receiver request: %s", durations(took))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(bystander), bystander)).To(Succeed())
		Expect(bystander.GetAnnotations()).NotTo(HaveKey(operatorName+"/reconcile-requested-at"), "the push named another repository")
	})

	It("renders nothing for a push event of a commit it rendered already, renders a new commit once, and renders anew when forced", func() {
		repo := newRepo(server, site("deploy", "v1"))
		c := createComponent(teamA, "once", gitSpec(server.HTTPURL(repo.Name), "deploy", &metav1.Duration{Duration: time.Hour}))
		waitVersion(c, "v1")
		path := createReceiver(teamA, "once", "Component", c.Name)
		rendered, written := data(c, "rendered")(), configMapOf(c).ResourceVersion
		announce := func(delivery int) {
			GinkgoHelper()
			code, text := postGitHubPush(path, "once", server.HTTPURL(repo.Name), delivery)
			Expect(code).To(Equal(200))
			Expect(text).To(Equal("asked 1 objects for a reconcile"))
			waitHandled(c)
		}

		looks := server.Counts(repo.Name).InfoRefs
		announce(201)
		Expect(server.Counts(repo.Name).InfoRefs).To(BeNumerically(">", looks), "the request looks at the repository at once")
		Expect(data(c, "rendered")()).To(Equal(rendered), "the commit it rendered: no new render, the random value stays")
		Expect(configMapOf(c).ResourceVersion).To(Equal(written), "nothing is written")
		Expect(ready(c)()).To(HavePrefix("True Ready"))

		second := push(repo, site("deploy", "v2"))
		announce(202)
		Eventually(revision(c)).WithTimeout(timeout).Should(Equal("main@sha1:" + second))
		waitVersion(c, "v2")
		again := data(c, "rendered")()
		Expect(again).NotTo(Equal(rendered), "a new commit renders")
		announce(203)
		Expect(data(c, "rendered")()).To(Equal(again), "once")

		forced := time.Now().UTC().Format(time.RFC3339Nano)
		patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, operatorName+"/force", forced))
		Expect(env.Client.Patch(ctx, c, client.RawPatch(types.MergePatchType, patch))).To(Succeed())
		Eventually(func() string {
			got := &v1alpha1.Component{}
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), got)).To(Succeed())
			return got.Status.LastHandledForceAt
		}).WithTimeout(timeout).Should(Equal(forced))
		Eventually(data(c, "rendered")).WithTimeout(timeout).ShouldNot(Equal(again), "a force renders anew")
		Expect(data(c, "version")()).To(Equal("v2"))
	})

	It("takes the highest tag of a semver range, and moves when a higher one is pushed", func() {
		repo := newRepo(server, site("deploy", "1.0.0"))
		Expect(repo.Tag("v1.0.0")).To(Succeed())
		push(repo, site("deploy", "1.4.0"))
		Expect(repo.AnnotatedTag("v1.4.0")).To(Succeed())
		push(repo, site("deploy", "2.0.0"))
		Expect(repo.Tag("v2.0.0")).To(Succeed())
		Expect(repo.Push()).To(Succeed())
		spec := gitSpec(server.HTTPURL(repo.Name), "deploy", every)
		spec.Git.Ref = &v1alpha1.GitRef{SemVer: "^1"}
		c := createComponent(teamA, "semver", spec)
		waitVersion(c, "1.4.0")
		Expect(revision(c)()).To(HavePrefix("v1.4.0@sha1:"))

		push(repo, site("deploy", "1.5.0"))
		Expect(repo.Tag("v1.5.0")).To(Succeed())
		Expect(repo.Push()).To(Succeed())
		waitVersion(c, "1.5.0")
		Eventually(revision(c)).Should(HavePrefix("v1.5.0@sha1:"))
	})

	It("reads a values file of a repository, and skips an optional one that is missing", func() {
		repo := newRepo(server, site("deploy", "v1"))
		values := newRepo(server, map[string]string{"envs/prod/values.yaml": "greeting: from git\n"})
		spec := gitSpec(server.HTTPURL(repo.Name), "deploy", every)
		spec.ValuesFrom = []v1alpha1.ValuesReference{
			{Kind: "Git", Git: &v1alpha1.GitSource{URL: server.HTTPURL(values.Name), Path: "envs/prod/values.yaml", Interval: every}},
			{Kind: "Git", Git: &v1alpha1.GitSource{URL: server.HTTPURL(values.Name), Path: "envs/prod/optional.yaml", Interval: every}, Optional: true},
		}
		c := createComponent(teamA, "values", spec)
		waitVersion(c, "v1")
		Expect(data(c, "greeting")()).To(Equal("from git"))
		push(values, map[string]string{"envs/prod/values.yaml": "greeting: changed in git\n"})
		Eventually(data(c, "greeting")).WithTimeout(timeout).Should(Equal("changed in git"))
	})

	It("refuses a spec.git beside another source, and a Git values entry without its file", func() {
		both := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "both"}, Spec: v1alpha1.ComponentSpec{
			Chart: &v1alpha1.ChartSource{Repository: "https://charts.example.com", Name: "x"}, Git: &v1alpha1.GitSource{URL: "https://example.com/r.git"}}}
		Expect(env.Client.Create(ctx, both)).To(MatchError(ContainSubstring("spec.chart and spec.git are both set: give exactly one of spec.source, spec.chart, spec.sourceRef and spec.git")))
		noFile := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "nofile"}, Spec: v1alpha1.ComponentSpec{
			Git:        &v1alpha1.GitSource{URL: "https://example.com/r.git"},
			ValuesFrom: []v1alpha1.ValuesReference{{Kind: "Git", Git: &v1alpha1.GitSource{URL: "https://example.com/v.git"}}}}}
		Expect(env.Client.Create(ctx, noFile)).To(MatchError(ContainSubstring("a valuesFrom entry of kind Git names its file with git.url and git.path")))
		tagMode := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "tagmode"}, Spec: v1alpha1.ComponentSpec{
			Git: &v1alpha1.GitSource{URL: "https://example.com/r.git", Ref: &v1alpha1.GitRef{Branch: "main"},
				Verify: &v1alpha1.GitVerification{Mode: "Tag", SecretRef: v1alpha1.LocalObjectReference{Name: "keys"}}}}}
		Expect(env.Client.Create(ctx, tagMode)).To(MatchError(ContainSubstring("verify.mode Tag and TagAndHEAD verify an annotated tag")))
	})
})
