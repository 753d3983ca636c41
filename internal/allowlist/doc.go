// Package allowlist decides whether a source URL (a Helm repository, an OCI
// chart reference, a Flux source's URL) may be used, by an ordered list of
// glob patterns as Argo CD's AppProject sourceRepos does: a URL is allowed
// when some allow pattern matches it and no deny pattern (one that starts
// with "!") does. Patterns and URLs are normalised first (see Normalize);
// in a pattern, "*" matches within one path segment and "**" across
// segments. An empty list allows everything.
package allowlist
