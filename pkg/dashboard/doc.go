// Package dashboard serves the status page of component operators
// built on pkg/component: an overview of every component a viewer may list
// and a page per component with its waves, conditions, Events, history,
// drift and dependencies, updated live by server-sent events; with
// Options.Sets, also every set of components (the reference operator's
// ComponentSet) with its cluster waves, each cluster's component, the ones
// that hold the wave the rollout is at and the unreachable ones (setpage.go),
// under the same RBAC rule as components: the viewer may list the kind.
//
// The page reads the components as unstructured objects of the kinds it is
// given, from one informer cache shared by every viewer; it never reads a
// Secret and never shows spec.values or what valuesFrom refers to. It is
// server-rendered HTML (html/template) with embedded static files and one
// small script; every route but the login form and the actions answers GET
// and HEAD only.
//
// An operator mounts it with a few lines, off until a flag gives it an
// address:
//
//	err := dashboard.AddToManager(mgr, *webAddr, dashboard.Options{
//		Kinds: []schema.GroupVersionKind{v1alpha1.GroupVersion.WithKind("Component")},
//	})
//
// New and Server do the same with any informer cache and Authorizer.
//
// With Auth set, every request needs a Kubernetes bearer token (the
// Authorization header or the cookie the login form sets), checked with a
// TokenReview; SubjectAccessReviews decide which namespaces' components and
// Events the viewer sees, both cached briefly, as kube-rbac-proxy does.
// Without Auth (wavekit dashboard on 127.0.0.1) the cache's own credentials
// decide.
//
// # Signing in
//
// With SignIn, people sign in with OpenID Connect (package oidc: the
// authorization code flow with PKCE); the session is a cookie sealed with
// the page's SessionKey (package session) that names the user and groups
// the ID token gave. Every check, for a token or a session, is a
// SubjectAccessReview of that user: the page never impersonates anyone.
//
// # Actions
//
// With Actions, a component's and a set's page offer reconcile, suspend,
// resume and roll back, and the overview promote for a definition whose
// rollout halted (actions.go: which, to whom; act.go: taking them). Each is
// allowed by an RBAC verb of its own on the object, so a role can grant
// "reconcile" without "patch". An action is a POST with the session's CSRF
// token; the page patches the object with Actions.Client and records an
// Event on it, through Actions.Recorder, that names the user. Without
// Auth (wavekit dashboard), Actions.Client's own credentials decide, and
// the page answers requests for 127.0.0.1 and localhost only.
package dashboard
