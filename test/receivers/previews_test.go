package receivers_test

import (
	"fmt"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/fakescm"
	wkcomponent "github.com/wavekit-dev/wavekit/pkg/component"
)

// shop is the repository of the previews.
const shop = "acme/shop"

var _ = Describe("a preview environment per pull request", Ordered, func() {
	var (
		scm      *fakescm.Server
		hookPath string
		delivery int
	)
	set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "previews"}}

	// event sends a signed pull_request event of the repository, as GitHub
	// sends one when a pull request is opened, pushed to, labelled or closed.
	event := func(action string) {
		GinkgoHelper()
		delivery++
		body := jsonBody(map[string]any{"action": action, "number": 12, "delivery": delivery, // a new body: the receiver drops replays
			"repository": map[string]any{"html_url": scm.URL + "/" + shop, "clone_url": scm.URL + "/" + shop + ".git"}})
		headers := github("previews-hook-key", fmt.Sprintf("pr-%d", delivery), body)
		headers["X-GitHub-Event"] = "pull_request"
		Expect(post(hookPath, body, headers).code).To(Equal(http.StatusOK))
	}
	greeting := func(name string) string {
		var cm corev1.ConfigMap
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: teamA, Name: name + "-config"}, &cm); err != nil {
			return "none"
		}
		return cm.Data["greeting"]
	}
	setReady := func() string {
		got := &v1alpha1.ComponentSet{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), got)).To(Succeed())
		for _, c := range got.Status.Conditions {
			if c.Type == wkcomponent.ConditionReady && c.ObservedGeneration == got.Generation {
				return fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message)
			}
		}
		return "none"
	}
	uid := func(name string) types.UID {
		c := component(teamA, name)
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
		return c.UID
	}

	BeforeAll(func() {
		scm = fakescm.New()
		DeferCleanup(scm.Close)
		scm.RequireToken("scm-token-value")
		scm.Add(shop, fakescm.PR{Number: 12, Branch: "feature/cart", Target: "main", Head: "a1", Title: "Cart", Labels: []string{"preview"}})
		scm.Add(shop, fakescm.PR{Number: 13, Branch: "fix/typo", Target: "main", Head: "b1", Title: "Typo"})
		createToken(teamA, "scm-token", "scm-token-value")
		createToken(teamA, "previews-hook", "previews-hook-key")
		hookPath = createReceiver(teamA, "previews", v1alpha1.ReceiverSpec{Type: v1alpha1.ReceiverGitHub, Events: []string{"pull_request"},
			SecretRef: v1alpha1.LocalObjectReference{Name: "previews-hook"},
			Resources: []v1alpha1.ReceiverResource{{Kind: "ComponentSet", Name: "previews"}}})
		set.Spec = v1alpha1.ComponentSetSpec{
			Inputs: &v1alpha1.Inputs{
				InputSource: v1alpha1.InputSource{PullRequests: &v1alpha1.PullRequestsInput{Provider: v1alpha1.PullRequestsGitHub,
					URL: scm.URL, Repository: shop, Labels: []string{"preview"}, SecretRef: &v1alpha1.LocalObjectReference{Name: "scm-token"}}},
				Name: "preview-${input.number}", ValuesKey: "-",
				Interval: &metav1.Duration{Duration: time.Hour}, // read again on events only
			},
			Template: v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "site",
				Values: &apiextensionsv1.JSON{Raw: []byte(`{"greeting":"pr ${input.number} at ${input.head}"}`)}}},
		}
		Expect(env.Client.Create(ctx, set)).To(Succeed())
	})

	It("gives a labelled pull request a preview at its head commit, and none to the others", func() {
		Eventually(greeting).WithArguments("preview-12").WithTimeout(timeout).Should(Equal("pr 12 at a1"))
		Eventually(setReady).WithTimeout(timeout).Should(HavePrefix("True/Ready: 1 of 1 members Ready"))
		Expect(greeting("preview-13")).To(Equal("none"))
		Expect(scm.Count("/repos/"+shop+"/pulls", 0)).To(Equal(1), "one listing")
		for _, r := range scm.Requests() {
			Expect(r.Authorized).To(BeTrue(), "with the token of the set's namespace")
		}
	})

	It("brings a newly labelled pull request up and upgrades a pushed one on the event", func() {
		before := uid("preview-12")
		scm.SetLabels(shop, 13, "preview")
		scm.Push(shop, 12, "a2")
		event("synchronize")
		Eventually(greeting).WithArguments("preview-13").WithTimeout(timeout).Should(Equal("pr 13 at b1"))
		Eventually(greeting).WithArguments("preview-12").WithTimeout(timeout).Should(Equal("pr 12 at a2"))
		Expect(uid("preview-12")).To(Equal(before), "upgraded in place")
		Eventually(setReady).WithTimeout(timeout).Should(HavePrefix("True/Ready: 2 of 2 members Ready"))
	})

	It("takes a closed pull request's environment with it, and only its", func() {
		kept := uid("preview-12")
		scm.ClosePR(shop, 13)
		event("closed")
		Eventually(greeting).WithArguments("preview-13").WithTimeout(timeout).Should(Equal("none"))
		Eventually(func() error {
			return env.Client.Get(ctx, client.ObjectKeyFromObject(component(teamA, "preview-13")), component(teamA, "preview-13"))
		}).
			WithTimeout(timeout).Should(MatchError(ContainSubstring("not found")))
		Expect(uid("preview-12")).To(Equal(kept))
		Expect(greeting("preview-12")).To(Equal("pr 12 at a2"))
	})

	It("keeps every member while the API fails or is rate limited, says why, and goes on when it answers", func() {
		kept := uid("preview-12")
		failed := scm.Count("/repos/"+shop+"/pulls", http.StatusInternalServerError)
		scm.FailNext(3, http.StatusInternalServerError)
		for i := range 3 {
			event("edited")
			Eventually(func() int { return scm.Count("/repos/"+shop+"/pulls", http.StatusInternalServerError) }).
				WithTimeout(timeout).Should(Equal(failed+i+1), "read %d fails", i+1)
		}
		Eventually(setReady).WithTimeout(timeout).Should(And(HavePrefix("False/InputsFailed: reading the inputs"), ContainSubstring("500"),
			ContainSubstring("the set keeps its 1 members: nothing was created, changed or removed")))
		got := &v1alpha1.ComponentSet{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), got)).To(Succeed())
		Expect(got.Status.Inputs.Error).To(ContainSubstring("500 Internal Server Error"))
		Expect(got.Status.Inputs.FailingSince).NotTo(BeNil())
		Expect(uid("preview-12")).To(Equal(kept))
		Expect(greeting("preview-12")).To(Equal("pr 12 at a2"))

		scm.RateLimitUntil(time.Now().Add(3 * time.Second))
		event("edited")
		Eventually(setReady).WithTimeout(timeout).Should(ContainSubstring("rate limited until"))
		limited := len(scm.Requests())
		event("edited")
		Consistently(func() int { return len(scm.Requests()) }).WithTimeout(time.Second).Should(Equal(limited), "nothing sent while the limit is spent")
		Expect(uid("preview-12")).To(Equal(kept))

		Eventually(func() string { event("edited"); return setReady() }).WithTimeout(timeout).WithPolling(2 * time.Second).
			Should(HavePrefix("True/Ready: 1 of 1 members Ready"))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), got)).To(Succeed())
		Expect(got.Status.Inputs).To(Equal(&v1alpha1.InputsStatus{Count: 1}))
	})
})
