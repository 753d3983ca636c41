// Package oidc signs people in to the status page with OpenID Connect:
// the authorization code flow with PKCE (S256), a state and a nonce, as
// a confidential client.
//
// # Flow
//
// Begin returns the provider's authorization URL and the Flow the page
// keeps in a sealed cookie until the provider sends the browser back;
// Finish checks the state, exchanges the code with the PKCE verifier,
// verifies the ID token (issuer, audience, expiry, signature by the
// provider's published keys, nonce) and returns the User its claims name.
//
// # Who the user is
//
// The user's name is the UsernameClaim of the ID token (default "email";
// an email claim counts only when email_verified is not false) and its
// groups the GroupsClaim (default "groups"), each with its prefix
// (default "oidc:"), the way the API server's own --oidc-username-claim,
// --oidc-username-prefix, --oidc-groups-claim and --oidc-groups-prefix
// do: RBAC bindings name the user as "oidc:alice@example.com" and the
// group as "oidc:viewers", and never collide with ServiceAccounts or
// system: groups.
//
// The provider is discovered on first use, and again after a failure, so
// a page starts while its provider is away.
package oidc
