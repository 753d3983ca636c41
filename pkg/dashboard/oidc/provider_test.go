package oidc_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/oauth2-proxy/mockoidc"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/dashboard/oidc"
)

func TestOIDC(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "oidc")
}

var _ = Describe("Provider", func() {
	var (
		ctx      = context.Background()
		server   *mockoidc.MockOIDC
		provider *oidc.Provider
	)

	BeforeEach(func() {
		var err error
		server, err = mockoidc.Run()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(server.Shutdown)
		provider, err = oidc.New(oidc.Config{IssuerURL: server.Issuer(), ClientID: server.ClientID,
			ClientSecret: server.ClientSecret, RedirectURL: "http://127.0.0.1:1/auth/callback"})
		Expect(err).NotTo(HaveOccurred())
	})

	// authorize follows the authorization URL as a browser would, and
	// returns the state and code the provider sends back.
	authorize := func(authURL string) (string, string) {
		GinkgoHelper()
		noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := noFollow.Get(authURL)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
		Expect(resp.StatusCode).To(Equal(http.StatusFound))
		back, err := url.Parse(resp.Header.Get("Location"))
		Expect(err).NotTo(HaveOccurred())
		return back.Query().Get("state"), back.Query().Get("code")
	}

	It("signs a user in with PKCE and names them and their groups with the prefixes", func() {
		server.QueueUser(&mockoidc.MockUser{Subject: "1", Email: "alice@example.com", EmailVerified: true, Groups: []string{"viewers", "ops"}})
		authURL, flow, err := provider.Begin(ctx, "/c/x")
		Expect(err).NotTo(HaveOccurred())
		Expect(authURL).To(ContainSubstring("code_challenge_method=S256"))
		Expect(authURL).NotTo(ContainSubstring(flow.Verifier))
		state, code := authorize(authURL)
		user, err := provider.Finish(ctx, flow, state, code)
		Expect(err).NotTo(HaveOccurred())
		Expect(user.Name).To(Equal("oidc:alice@example.com"))
		Expect(user.Groups).To(Equal([]string{"oidc:viewers", "oidc:ops"}))
		Expect(user.Expires).NotTo(BeZero())
	})

	It("refuses an answer of another sign-in and a verifier that is not the flow's", func() {
		_, flow, err := provider.Begin(ctx, "/")
		Expect(err).NotTo(HaveOccurred())
		authURL, other, err := provider.Begin(ctx, "/")
		Expect(err).NotTo(HaveOccurred())
		state, code := authorize(authURL)
		_, err = provider.Finish(ctx, flow, state, code)
		Expect(err).To(MatchError(ContainSubstring("the state of the answer is not the one of this sign-in")))
		other.Verifier = flow.Verifier
		_, err = provider.Finish(ctx, other, state, code)
		Expect(err).To(MatchError(ContainSubstring("exchanging the code")))
	})

	It("refuses an ID token without the claim that names the user", func() {
		server.QueueUser(&mockoidc.MockUser{Subject: "2", PreferredUsername: "mallory"})
		authURL, flow, err := provider.Begin(ctx, "/")
		Expect(err).NotTo(HaveOccurred())
		state, code := authorize(authURL)
		_, err = provider.Finish(ctx, flow, state, code)
		Expect(err).To(MatchError(ContainSubstring(`the ID token has no "email" claim to name the user`)))
	})

	It("says what is missing from its configuration", func() {
		_, err := oidc.New(oidc.Config{IssuerURL: "https://id.example.com", ClientID: "x", RedirectURL: "https://w.example.com/callback"})
		Expect(err).To(MatchError(ContainSubstring("must end in /auth/callback")))
		_, err = oidc.New(oidc.Config{ClientID: "x"})
		Expect(err).To(MatchError(ContainSubstring("the issuer URL, the client ID and the redirect URL are required")))
	})
})
