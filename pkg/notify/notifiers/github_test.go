package notifiers_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/fakegithub"
	"github.com/wavekit-dev/wavekit/pkg/notify"
	"github.com/wavekit-dev/wavekit/pkg/notify/notifiers"
)

var _ = Describe("GitHub commit statuses", func() {
	ctx := context.Background()
	var (
		api *fakegithub.Server
		gh  *notifiers.GitHub
	)
	BeforeEach(func() {
		api = fakegithub.New()
		DeferCleanup(api.Close)
		gh = &notifiers.GitHub{API: api.URL, Owner: "acme", Repo: "shop", Token: "ghp_token", ContextSuffix: "1a2b3c4d"}
	})
	latest := func() fakegithub.Status {
		GinkgoHelper()
		statuses := api.Statuses("acme", "shop", commit)
		Expect(statuses).NotTo(BeEmpty())
		return statuses[0]
	}
	posts := func() int {
		n := 0
		for _, r := range api.Requests() {
			if strings.HasPrefix(r, "POST ") {
				n++
			}
		}
		return n
	}

	It("sets the status of the revision's commit, and posts nothing when the latest says the same", func() {
		Expect(gh.Notify(ctx, ready())).To(Succeed())
		Expect(latest()).To(Equal(fakegithub.Status{
			State: "success", Context: "component/shop/web/1a2b3c4d", Description: "Ready: every object is applied and ready",
		}))
		err := gh.Notify(ctx, ready())
		reason, skipped := notify.SkipReason(err)
		Expect(skipped).To(BeTrue())
		Expect(reason).To(Equal("unchanged"))
		Expect(posts()).To(Equal(1))

		long := failed()
		long.Message = strings.Repeat("the API server refused it; ", 20)
		Expect(gh.Notify(ctx, long)).To(Succeed())
		Expect(latest().State).To(Equal("failure"))
		Expect(latest().Description).To(And(HavePrefix("Failed: the API server"), HaveLen(140)), "GitHub keeps 140 characters")
		Expect(gh.Notify(ctx, ready())).To(Succeed(), "back to success: the latest said otherwise")
		Expect(posts()).To(Equal(3))
		Expect(api.Tokens()).To(HaveEach("Bearer ghp_token"))
	})

	It("skips an event whose revision is no Git commit, and one that is not about the commit", func() {
		for _, revision := range []string{"1.2.3", "latest@sha256:" + commit + commit[:24], ""} {
			e := ready()
			e.Revision = revision
			reason, skipped := notify.SkipReason(gh.Notify(ctx, e))
			Expect(skipped).To(BeTrue(), "revision %q", revision)
			Expect(reason).To(Equal("not_applicable"))
		}
		drift := ready()
		drift.Kind = notify.KindDriftCorrected
		_, skipped := notify.SkipReason(gh.Notify(ctx, drift))
		Expect(skipped).To(BeTrue())
		Expect(api.Requests()).To(BeEmpty())
	})

	It("reads the commit of Flux's revisions", func() {
		for revision, want := range map[string]string{
			"main@sha1:" + commit:                     commit,
			"refs/heads/main@sha1:" + commit:          commit,
			"sha1:" + commit:                          commit,
			"main/" + commit:                          commit,
			commit:                                    commit,
			"MAIN@SHA1:" + commit:                     commit,
			"v1.2.3":                                  "",
			"sha1:" + commit[:39]:                     "",
			"latest@sha256:" + commit + commit[:24]:   "",
			"main@sha1:" + commit + "/charts/../evil": "",
		} {
			Expect(notifiers.CommitOf(revision)).To(Equal(want), "revision %q", revision)
		}
	})

	It("reads a repository's owner and name from its URL", func() {
		for address, want := range map[string][2]string{
			"https://github.com/acme/shop":       {"acme", "shop"},
			"https://github.com/acme/shop.git":   {"acme", "shop"},
			"https://ghe.example.com/acme/shop/": {"acme", "shop"},
			"ssh://git@github.com/acme/shop.git": {"acme", "shop"},
			"git@github.com:acme/shop.git":       {"acme", "shop"},
		} {
			owner, repo, err := notifiers.ParseRepository(address)
			Expect(err).NotTo(HaveOccurred(), address)
			Expect([2]string{owner, repo}).To(Equal(want), address)
		}
		for _, bad := range []string{"https://github.com/acme", "https://github.com/a/b/c", "shop"} {
			_, _, err := notifiers.ParseRepository(bad)
			Expect(err).To(HaveOccurred(), bad)
		}
	})
})
