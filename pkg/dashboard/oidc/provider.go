package oidc

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Config is the page's OpenID Connect client.
type Config struct {
	// IssuerURL is the provider's issuer; its discovery document is at
	// IssuerURL/.well-known/openid-configuration.
	IssuerURL string
	// ClientID and ClientSecret are the page's client at the provider.
	ClientID, ClientSecret string
	// RedirectURL is the page's callback as the browser reaches it:
	// <external URL>/auth/callback.
	RedirectURL string
	// Scopes asked besides openid (default: email, profile, groups).
	Scopes []string
	// UsernameClaim is the claim that names the user (default "email").
	UsernameClaim string
	// UsernamePrefix goes before the name (default "oidc:"; "-" for none).
	UsernamePrefix string
	// GroupsClaim is the claim that lists the user's groups (default
	// "groups").
	GroupsClaim string
	// GroupsPrefix goes before each group (default "oidc:"; "-" for none).
	GroupsPrefix string
}

// User is who signed in, as RBAC sees them.
type User struct {
	Name   string
	Groups []string
	// Expires is when the ID token expires.
	Expires time.Time
}

// Flow is a sign-in under way: what Finish needs to check the answer.
type Flow struct {
	State    string `json:"state"`
	Verifier string `json:"verifier"`
	Nonce    string `json:"nonce"`
	// Return is the page's path to go back to.
	Return string `json:"return"`
}

// Provider signs users in with one OpenID Connect provider.
type Provider struct {
	cfg Config
	mu  sync.Mutex
	// discovered is nil until the provider's discovery document is read.
	discovered *discovered
}

type discovered struct {
	oauth    oauth2.Config
	verifier *gooidc.IDTokenVerifier
}

// New checks cfg and fills its defaults; the provider is discovered on
// first use.
func New(cfg Config) (*Provider, error) {
	if cfg.IssuerURL == "" || cfg.ClientID == "" || cfg.RedirectURL == "" {
		return nil, errors.New("oidc: the issuer URL, the client ID and the redirect URL are required")
	}
	if !strings.HasSuffix(cfg.RedirectURL, "/auth/callback") {
		return nil, fmt.Errorf("oidc: the redirect URL %q must end in /auth/callback, the page's callback", cfg.RedirectURL)
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = []string{"email", "profile", "groups"}
	}
	cfg.UsernameClaim = orDefault(cfg.UsernameClaim, "email")
	cfg.GroupsClaim = orDefault(cfg.GroupsClaim, "groups")
	cfg.UsernamePrefix = prefix(cfg.UsernamePrefix)
	cfg.GroupsPrefix = prefix(cfg.GroupsPrefix)
	return &Provider{cfg: cfg}, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// prefix is a prefix option's value: "" is the default, "-" none.
func prefix(s string) string {
	switch s {
	case "":
		return "oidc:"
	case "-":
		return ""
	}
	return s
}

// discoveryTimeout bounds a read of the provider's discovery document.
const discoveryTimeout = 15 * time.Second

// discover reads the provider's discovery document once it answers. The
// read holds no lock: a provider that does not answer delays only the
// sign-ins that wait for it, each within its own context, and two that
// race both read it, which is harmless.
func (p *Provider) discover(ctx context.Context) (*discovered, error) {
	p.mu.Lock()
	d := p.discovered
	p.mu.Unlock()
	if d != nil {
		return d, nil
	}
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	provider, err := gooidc.NewProvider(ctx, p.cfg.IssuerURL)
	if err != nil {
		return nil, fmt.Errorf("oidc: discovering %s: %w", p.cfg.IssuerURL, err)
	}
	d = &discovered{
		oauth: oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, RedirectURL: p.cfg.RedirectURL,
			Endpoint: provider.Endpoint(), Scopes: append([]string{gooidc.ScopeOpenID}, p.cfg.Scopes...)},
		verifier: provider.Verifier(&gooidc.Config{ClientID: p.cfg.ClientID}),
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.discovered == nil {
		p.discovered = d
	}
	return p.discovered, nil
}

// Begin starts a sign-in that returns to the page's path back: the URL
// to send the browser to, and the Flow to keep until it comes back.
func (p *Provider) Begin(ctx context.Context, back string) (string, Flow, error) {
	d, err := p.discover(ctx)
	if err != nil {
		return "", Flow{}, err
	}
	flow := Flow{State: random(), Verifier: oauth2.GenerateVerifier(), Nonce: random(), Return: back}
	url := d.oauth.AuthCodeURL(flow.State, oauth2.S256ChallengeOption(flow.Verifier), gooidc.Nonce(flow.Nonce))
	return url, flow, nil
}

// Finish completes the sign-in of flow with the state and code the
// provider sent back, and returns the user.
func (p *Provider) Finish(ctx context.Context, flow Flow, state, code string) (User, error) {
	if state == "" || state != flow.State {
		return User{}, errors.New("oidc: the state of the answer is not the one of this sign-in")
	}
	if code == "" {
		return User{}, errors.New("oidc: the provider sent no code")
	}
	d, err := p.discover(ctx)
	if err != nil {
		return User{}, err
	}
	token, err := d.oauth.Exchange(ctx, code, oauth2.VerifierOption(flow.Verifier))
	if err != nil {
		return User{}, fmt.Errorf("oidc: exchanging the code: %w", err)
	}
	raw, ok := token.Extra("id_token").(string)
	if !ok || raw == "" {
		return User{}, errors.New("oidc: the provider's answer has no ID token")
	}
	idToken, err := d.verifier.Verify(ctx, raw)
	if err != nil {
		return User{}, fmt.Errorf("oidc: verifying the ID token: %w", err)
	}
	if idToken.Nonce != flow.Nonce {
		return User{}, errors.New("oidc: the ID token's nonce is not the one of this sign-in")
	}
	var claims map[string]any
	if err := idToken.Claims(&claims); err != nil {
		return User{}, fmt.Errorf("oidc: reading the ID token's claims: %w", err)
	}
	user, err := p.userOf(claims)
	if err != nil {
		return User{}, err
	}
	user.Expires = idToken.Expiry
	return user, nil
}

// userOf reads the user's name and groups from an ID token's claims.
func (p *Provider) userOf(claims map[string]any) (User, error) {
	name, _ := claims[p.cfg.UsernameClaim].(string)
	if name == "" {
		return User{}, fmt.Errorf("oidc: the ID token has no %q claim to name the user", p.cfg.UsernameClaim)
	}
	if p.cfg.UsernameClaim == "email" {
		if verified, ok := claims["email_verified"].(bool); ok && !verified {
			return User{}, fmt.Errorf("oidc: the email %s is not verified by the provider", name)
		}
	}
	user := User{Name: p.cfg.UsernamePrefix + name}
	switch groups := claims[p.cfg.GroupsClaim].(type) {
	case string:
		user.Groups = []string{p.cfg.GroupsPrefix + groups}
	case []any:
		for _, g := range groups {
			if s, ok := g.(string); ok && s != "" {
				user.Groups = append(user.Groups, p.cfg.GroupsPrefix+s)
			}
		}
	}
	return user, nil
}

// random is 16 random bytes, base64url.
func random() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("reading random bytes: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
