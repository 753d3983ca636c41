package notifiers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/notify"
	"github.com/wavekit-dev/wavekit/pkg/notify/notifiers"
)

// fakeGitHub serves GitHub's commit-status API for one repository:
// GET /repos/{owner}/{repo}/commits/{sha}/statuses (newest first) and
// POST /repos/{owner}/{repo}/statuses/{sha}.
type fakeGitHub struct {
	*httptest.Server
	mu       sync.Mutex
	statuses map[string][]map[string]any // by sha, newest first
	posts    int
	tokens   []string
}

func newFakeGitHub(owner, repo string) *fakeGitHub {
	g := &fakeGitHub{statuses: map[string][]map[string]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/"+owner+"/"+repo+"/commits/{sha}/statuses", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.tokens = append(g.tokens, r.Header.Get("Authorization"))
		list := g.statuses[r.PathValue("sha")]
		if list == nil {
			list = []map[string]any{}
		}
		_ = json.NewEncoder(w).Encode(list)
	})
	mux.HandleFunc("POST /repos/"+owner+"/"+repo+"/statuses/{sha}", func(w http.ResponseWriter, r *http.Request) {
		var status map[string]any
		if err := json.NewDecoder(r.Body).Decode(&status); err != nil || status["state"] == nil {
			http.Error(w, `{"message":"Validation Failed"}`, http.StatusUnprocessableEntity)
			return
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		g.tokens = append(g.tokens, r.Header.Get("Authorization"))
		g.posts++
		sha := r.PathValue("sha")
		g.statuses[sha] = append([]map[string]any{status}, g.statuses[sha]...)
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(status)
	})
	g.Server = httptest.NewServer(mux)
	DeferCleanup(g.Close)
	return g
}

func (g *fakeGitHub) latest(sha string) map[string]any {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.statuses[sha]) == 0 {
		return nil
	}
	return g.statuses[sha][0]
}

func (g *fakeGitHub) postCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.posts
}

var _ = Describe("GitHub commit statuses", func() {
	ctx := context.Background()
	var (
		api *fakeGitHub
		gh  *notifiers.GitHub
	)
	BeforeEach(func() {
		api = newFakeGitHub("acme", "shop")
		gh = &notifiers.GitHub{API: api.URL, Owner: "acme", Repo: "shop", Token: "ghp_token", ContextSuffix: "1a2b3c4d"}
	})

	It("sets the status of the revision's commit, and posts nothing when the latest says the same", func() {
		Expect(gh.Notify(ctx, ready())).To(Succeed())
		Expect(api.latest(commit)).To(Equal(map[string]any{
			"state": "success", "context": "component/shop/web/1a2b3c4d", "description": "Ready: every object is applied and ready",
		}))
		err := gh.Notify(ctx, ready())
		reason, skipped := notify.SkipReason(err)
		Expect(skipped).To(BeTrue())
		Expect(reason).To(Equal("unchanged"))
		Expect(api.postCount()).To(Equal(1))

		long := failed()
		long.Message = strings.Repeat("the API server refused it; ", 20)
		Expect(gh.Notify(ctx, long)).To(Succeed())
		Expect(api.latest(commit)).To(HaveKeyWithValue("state", "failure"))
		Expect(api.latest(commit)["description"]).To(And(HavePrefix("Failed: the API server"), HaveLen(140)), "GitHub keeps 140 characters")
		Expect(gh.Notify(ctx, ready())).To(Succeed(), "back to success: the latest said otherwise")
		Expect(api.postCount()).To(Equal(3))
		Expect(api.tokens).To(HaveEach("Bearer ghp_token"))
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
		Expect(api.postCount()).To(BeZero())
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
