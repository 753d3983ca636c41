package pullrequests_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
	"github.com/wavekit-dev/wavekit/internal/inputs/pullrequests"
	"github.com/wavekit-dev/wavekit/internal/testing/fakescm"
)

const repo = "acme/shop"

var _ = Describe("pull requests as inputs", func() {
	var (
		api    *fakescm.Server
		source *pullrequests.Source
		now    time.Time
		clock  sync.Mutex
	)
	ctx := context.Background()
	hour := inputs.ReadOptions{Interval: time.Hour}
	tick := func(d time.Duration) { clock.Lock(); now = now.Add(d); clock.Unlock() }

	BeforeEach(func() {
		api = fakescm.New()
		DeferCleanup(api.Close)
		api.RequireToken("secret-token-value")
		now = time.Now()
		source = pullrequests.New(secrets{
			"team-a/scm": {"token": []byte("secret-token-value")},
			"team-c/scm": {"token": []byte("another-token")},
		}, pullrequests.WithClock(func() time.Time { clock.Lock(); defer clock.Unlock(); return now }))
		api.Add(repo, fakescm.PR{Number: 12, Branch: "feature/cart", Target: "main", Head: "a1", Title: "Cart", Author: "ana", Labels: []string{"preview", "ui"}})
		api.Add(repo, fakescm.PR{Number: 13, Branch: "fix/typo", Target: "main", Head: "b1", Title: "Typo", Author: "bo"})
		api.Add(repo, fakescm.PR{Number: 14, Branch: "next", Target: "release", Head: "c1", Title: "Next", Labels: []string{"preview"}})
	})

	spec := func(provider v1alpha1.PullRequestProvider, labels ...string) v1alpha1.InputSource {
		return v1alpha1.InputSource{PullRequests: &v1alpha1.PullRequestsInput{Provider: provider, URL: api.URL, Repository: repo,
			SecretRef: &v1alpha1.LocalObjectReference{Name: "scm"}, Labels: labels, TargetBranch: "main"}}
	}
	ids := func(in []inputs.Input) []string {
		out := []string{}
		for _, i := range in {
			out = append(out, i.ID)
		}
		return out
	}

	DescribeTable("maps each provider's fields and keeps the labelled pull requests of the target branch",
		func(provider v1alpha1.PullRequestProvider, path string) {
			got, err := source.Read(ctx, "team-a", spec(provider, "preview"), hour)
			Expect(err).NotTo(HaveOccurred())
			Expect(ids(got)).To(Equal([]string{"12"}))
			Expect(got[0].Fields).To(And(HaveKeyWithValue("number", 12), HaveKeyWithValue("branch", "feature/cart"),
				HaveKeyWithValue("targetBranch", "main"), HaveKeyWithValue("head", "a1"), HaveKeyWithValue("title", "Cart"),
				HaveKeyWithValue("author", "ana"), HaveKeyWithValue("labels", []any{"preview", "ui"}), HaveKeyWithValue("url", ContainSubstring("12"))))
			Expect(api.Count(path, http.StatusOK)).To(Equal(1))
			for _, r := range api.Requests() {
				Expect(r.Authorized).To(BeTrue())
			}
		},
		Entry("GitHub", v1alpha1.PullRequestsGitHub, "/repos/acme/shop/pulls"),
		Entry("GitLab", v1alpha1.PullRequestsGitLab, "/api/v4/projects/acme/shop/merge_requests"),
		Entry("Gitea", v1alpha1.PullRequestsGitea, "/api/v1/repos/acme/shop/pulls"),
	)

	It("forgets a listing no set read for a day: the next read of it is a whole one, not a conditional one", func() {
		_, err := source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub), hour)
		Expect(err).NotTo(HaveOccurred())
		tick(2 * time.Hour)
		_, err = source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub), hour)
		Expect(err).NotTo(HaveOccurred())
		Expect(api.Requests()[1].Conditional).To(BeTrue(), "a listing kept: asked again with If-None-Match")

		tick(25 * time.Hour)
		other := spec(v1alpha1.PullRequestsGitHub)
		other.PullRequests.Repository = "acme/blog"
		_, err = source.Read(ctx, "team-a", other, hour) // another listing's read sweeps
		Expect(err).NotTo(HaveOccurred())
		_, err = source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub), hour)
		Expect(err).NotTo(HaveOccurred())
		requests := api.Requests()
		Expect(requests[len(requests)-1].Conditional).To(BeFalse(), "forgotten: read whole")
	})

	It("lists once per interval for fifty sets, asks again with If-None-Match past it, and a 304 keeps the listing", func() {
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				defer GinkgoRecover()
				got, err := source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), hour)
				Expect(err).NotTo(HaveOccurred())
				Expect(ids(got)).To(Equal([]string{"12"}))
			})
		}
		wg.Wait()
		Expect(api.Requests()).To(HaveLen(1), "fifty sets, one listing")

		tick(time.Hour)
		for range 50 {
			_, err := source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), hour)
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(api.Requests()).To(HaveLen(2))
		Expect(api.Requests()[1]).To(And(HaveField("Conditional", true), HaveField("Status", http.StatusNotModified)))

		api.Push(repo, 12, "a2")
		api.ClosePR(repo, 14)
		got, err := source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), hour)
		Expect(err).NotTo(HaveOccurred())
		Expect(got[0].Fields).To(HaveKeyWithValue("head", "a1"), "within the interval: the listing it has")
		tick(time.Second) // a Receiver's event, a second after that listing
		got, err = source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), inputs.ReadOptions{Interval: time.Hour, Since: now})
		Expect(err).NotTo(HaveOccurred())
		Expect(got[0].Fields).To(HaveKeyWithValue("head", "a2"), "a read asked since now: a new listing")
		Expect(api.Requests()).To(HaveLen(3))
	})

	It("removes the input of a pull request closed or unlabelled, and only it", func() {
		api.SetLabels(repo, 13, "preview")
		got, err := source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), inputs.ReadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(got)).To(Equal([]string{"12", "13"}))
		api.ClosePR(repo, 12)
		got, err = source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), inputs.ReadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(got)).To(Equal([]string{"13"}))
		api.SetLabels(repo, 13)
		got, err = source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), inputs.ReadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(BeEmpty(), "a good listing with none: an empty list, not an error")
	})

	It("follows the pages of a long listing", func() {
		for n := 100; n < 260; n++ {
			api.Add(repo, fakescm.PR{Number: n, Branch: fmt.Sprintf("b%d", n), Target: "main", Head: "h", Labels: []string{"preview"}})
		}
		for _, p := range []v1alpha1.PullRequestProvider{v1alpha1.PullRequestsGitHub, v1alpha1.PullRequestsGitLab, v1alpha1.PullRequestsGitea} {
			got, err := source.Read(ctx, "team-a", spec(p, "preview"), inputs.ReadOptions{})
			Expect(err).NotTo(HaveOccurred(), string(p))
			Expect(got).To(HaveLen(161), string(p))
		}
	})

	It("gives an error and no inputs when the API fails, and reads again after", func() {
		api.FailNext(1, http.StatusInternalServerError)
		got, err := source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), inputs.ReadOptions{})
		Expect(err).To(MatchError(ContainSubstring("500 Internal Server Error")))
		Expect(got).To(BeNil())
		got, err = source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), inputs.ReadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(got)).To(Equal([]string{"12"}))
	})

	It("answers the reads that follow a failure with it for a while, not the API, unless asked since later", func() {
		api.FailNext(1, http.StatusBadGateway)
		for range 20 {
			_, err := source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), hour)
			Expect(err).To(MatchError(ContainSubstring("502 Bad Gateway")))
		}
		Expect(api.Requests()).To(HaveLen(1), "twenty sets, one failed read")
		tick(time.Second)
		got, err := source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), inputs.ReadOptions{Interval: time.Hour, Since: now})
		Expect(err).NotTo(HaveOccurred(), "an event after the failure reads again")
		Expect(ids(got)).To(Equal([]string{"12"}))
		Expect(api.Requests()).To(HaveLen(2))
	})

	It("sends nothing to a host whose rate limit is spent until it resets", func() {
		api.RateLimitUntil(time.Now().Add(time.Hour))
		_, err := source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), inputs.ReadOptions{})
		var limited *pullrequests.RateLimitedError
		Expect(errors.As(err, &limited)).To(BeTrue(), "%v", err)
		Expect(api.Requests()).To(HaveLen(1))
		for range 5 {
			_, err = source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitLab, "preview"), inputs.ReadOptions{})
			Expect(errors.As(err, &limited)).To(BeTrue())
		}
		Expect(api.Requests()).To(HaveLen(1), "nothing sent while the limit is spent, for any provider of the host")
		api.RateLimitUntil(time.Time{})
		tick(time.Hour + time.Minute)
		got, err := source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub, "preview"), inputs.ReadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(got)).To(Equal([]string{"12"}))
	})

	It("reads a namespace's token for it alone, and says whose token was refused without showing it", func() {
		_, err := source.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub), hour)
		Expect(err).NotTo(HaveOccurred())
		_, err = source.Read(ctx, "team-b", spec(v1alpha1.PullRequestsGitHub), hour)
		Expect(err).To(MatchError(ContainSubstring("reading Secret team-b/scm")), "no riding on team-a's listing")
		_, err = source.Read(ctx, "team-c", spec(v1alpha1.PullRequestsGitHub), hour)
		Expect(err).To(MatchError(ContainSubstring("refused the token of Secret team-c/scm (401)")))
		Expect(err.Error()).NotTo(ContainSubstring("another-token"))
		Expect(api.Requests()).To(HaveLen(2))
	})

	It("sends the token to the API's host only: no redirect or next page to another host is followed", func() {
		var leaked []string
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			leaked = append(leaked, r.Header.Get("PRIVATE-TOKEN")+r.Header.Get("Authorization"))
			_, _ = w.Write([]byte("[]"))
		}))
		DeferCleanup(other.Close)
		redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("page") == "1" || r.URL.Query().Get("limit") != "" {
				w.Header().Set("Link", fmt.Sprintf(`<%s/next>; rel="next"`, other.URL))
				_, _ = w.Write([]byte("[]"))
				return
			}
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
		}))
		DeferCleanup(redirecting.Close)
		for _, p := range []v1alpha1.PullRequestProvider{v1alpha1.PullRequestsGitLab, v1alpha1.PullRequestsGitea} {
			in := spec(p)
			in.PullRequests.URL = redirecting.URL
			_, err := source.Read(ctx, "team-a", in, inputs.ReadOptions{})
			Expect(err).To(MatchError(ContainSubstring("another host")), string(p))
		}
		Expect(leaked).To(BeEmpty())
	})

	It("checks the API's URL before it sends anything", func() {
		refusing := pullrequests.New(secrets{}, pullrequests.WithAllow(func(_ context.Context, namespace, url string) error {
			return fmt.Errorf("%s is not an allowed source for %s", url, namespace)
		}))
		_, err := refusing.Read(ctx, "team-a", spec(v1alpha1.PullRequestsGitHub), hour)
		Expect(err).To(MatchError(ContainSubstring("is not an allowed source for team-a")))
		Expect(api.Requests()).To(BeEmpty())
	})
})
