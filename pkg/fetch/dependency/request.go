package dependency

import (
	"context"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// Request asks for the dependencies of one render of a chart.
type Request struct {
	// Chart is the chart as loaded. It is read, never changed.
	Chart *chart.Chart
	// Dir is the directory Chart was loaded from: file:// dependencies are
	// relative to it. Empty for a chart that is not on disk, which then
	// can have none.
	Dir string
	// Root is the directory file:// dependencies must stay inside (the
	// repository or folder the chart comes from); empty: Dir.
	Root string
	// Values are the render's values, before Helm coalesces them with the
	// chart's defaults: they decide which dependencies are needed.
	Values map[string]any
	// Access says how the repositories are reached.
	Access Access
}

// Access says how one render reaches the repositories of its dependencies.
type Access struct {
	// Identity names who reaches them with what: resolutions are shared
	// only between requests of one identity (a namespace, a service
	// account, the keys of a verification).
	Identity string
	// Repositories returns the repositories the render may name by @name
	// and the credentials of those it reaches by URL. It is called only
	// when a repository must be reached or a name mapped, at most once a
	// Resolve; nil: every repository is anonymous and no name is known.
	Repositories func(ctx context.Context) (Repositories, error)
	// NamesFrom says where the names of Repositories come from, for the
	// message of a name that no repository has ("Helm's repositories
	// file", "the repository Secrets of namespace shop").
	NamesFrom string
	// Allow refuses chart name of a repository (its URL, names mapped)
	// before any request is sent to it; nil allows every one. It is asked
	// on every Resolve, for resolutions remembered too.
	Allow func(repository, name string) error
	// Verifier returns what checks a dependency of a repository before it
	// is loaded (cosign for oci://, a provenance file for https://); nil,
	// or a nil Verifier: not checked.
	Verifier func(ctx context.Context, repository string) (fetch.Verifier, error)
	// MaxAge is how long a resolution is used before the repository is
	// asked again for new versions; 0: always ask.
	MaxAge time.Duration
}

// Repository is a repository a render may use: by name (@name,
// alias:name) and with credentials for every URL under its own.
type Repository struct {
	// Name is what @name and alias:name refer to; empty: none.
	Name string
	// URL is the repository's URL; a dependency whose repository is this
	// URL, or a path under it, is reached with Credentials. A scheme
	// alone ("oci://") stands for every URL of the scheme that no longer
	// URL matches: a way to speak plain HTTP to every OCI registry.
	URL string
	// Credentials authenticate to it; nil: anonymous.
	Credentials *fetch.Credentials
	// PlainHTTP speaks plain HTTP to an OCI registry (oci:// says nothing
	// of the protocol); a Helm repository's URL says it itself.
	PlainHTTP bool
}

// Repositories are the repositories a render may use.
type Repositories []Repository

// Named returns the repository of name.
func (rs Repositories) Named(name string) (Repository, bool) {
	for _, r := range rs {
		if r.Name != "" && r.Name == name {
			return r, true
		}
	}
	return Repository{}, false
}

// ForURL returns the repository whose URL is url or the longest prefix of
// url that ends at a path segment's end, if any.
func (rs Repositories) ForURL(url string) (Repository, bool) {
	var best Repository
	found := false
	for _, r := range rs {
		prefix := strings.TrimSuffix(r.URL, "/")
		if prefix == "" || !underURL(url, prefix) {
			continue
		}
		if !found || len(prefix) > len(strings.TrimSuffix(best.URL, "/")) {
			best, found = r, true
		}
	}
	return best, found
}

// underURL reports whether url is prefix or a path under it.
func underURL(url, prefix string) bool {
	url = strings.TrimSuffix(url, "/")
	return url == prefix || strings.HasPrefix(url, prefix+"/")
}

// Result is a chart with the dependencies of one render.
type Result struct {
	// Chart is Request.Chart with every dependency the render needs
	// added, in a tree of its own whose nodes share the loaded charts'
	// metadata, values and files: clone it before Helm's dependency
	// processing changes it. It is Request.Chart itself when nothing was
	// missing.
	Chart *chart.Chart
	// Dependencies are the dependencies that were added, parents first.
	Dependencies []Resolved
}

// Resolved is a dependency added to a chart.
type Resolved struct {
	// Path names it in the chart tree: its alias, or its name, after
	// its parent's for a dependency of a dependency ("child/grandchild").
	Path string
	// Name is the chart's name.
	Name string
	// Repository is where it came from: a URL (@name and alias:name
	// mapped), or file://<path> as the chart writes it.
	Repository string
	// Version is the chart's version.
	Version string
	// Digest is the archive's digest (a Helm repository's) or the
	// manifest's (an OCI registry's); empty for file://.
	Digest string
	// Verified says what verified it, when the Access asked for it.
	Verified string
}
