// Package pullrequests reads a ComponentSet's spec.inputs.pullRequests:
// the open pull requests of a GitHub, GitLab (merge requests) or
// Gitea/Forgejo repository, each an input with its number, branches, head
// commit, title, labels, author and URL, kept when it carries every label
// and targets the branch the set asks for.
//
// # Cost
//
// One listing per repository per interval, whatever the number of sets:
// listings are memoized by provider, API URL, repository and identity (none
// for anonymous reads; the namespace, the Secret and a digest of its token
// otherwise, so that no set rides on a listing made with another namespace's
// token). Concurrent reads of one listing make one request. Past the
// interval, or for a read asked since a time (a Receiver's event), a
// one-page listing is asked again with If-None-Match, and a 304 keeps it.
//
// # Rate limits
//
// An answer that says the host's limit is spent (X-RateLimit-Remaining: 0
// with X-RateLimit-Reset, GitLab's RateLimit-Remaining and RateLimit-Reset,
// or a 403 or 429 with Retry-After) stops every request to that host until
// the time it gives: reads fail at once with a *RateLimitedError.
//
// # Errors
//
// A read that fails returns an error and no inputs, never an empty list:
// the caller keeps what it had. A 401 names the Secret, never the token.
package pullrequests
