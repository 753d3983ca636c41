// Package fetch brings the sources of components onto local disk: Helm
// charts from Helm repositories and OCI registries, and .tar.gz artifacts
// such as those of Flux's source-controller. What it fetches it keeps in a
// Cache, by digest, so that an unchanged source is downloaded once; it
// returns a directory to render (with Helm, kustomize or templates, which
// are not this package's concern).
//
//	cache, err := fetch.NewCache("/var/cache/wavekit", 1<<30)
//	f := fetch.NewFetcher(cache)
//	chart, err := f.Chart(ctx, fetch.ChartRequest{
//		Repository: "https://charts.example.com", Name: "web", Version: "^1.2",
//		MaxAge: 5 * time.Minute,
//	})
//	// chart.Dir holds Chart.yaml; chart.Revision is the version picked.
//
// # Charts from Helm repositories
//
// Chart reads the repository's index.yaml with the Helm SDK and picks a
// version as Helm does: Version is a semver constraint, "" the newest
// stable version, and pre-releases only match a constraint that has one.
// The archive is checked against the index's digest, and the cache is keyed
// by it, so an archive the cache holds is not downloaded again. The index
// itself is reused, in memory, for MaxAge. A login is sent to the
// repository's host only, not to another host its index points to.
//
// # Charts from OCI registries
//
// For oci://host/path, Chart lists the chart's tags (reused for MaxAge,
// like an index), resolves the chosen tag to its manifest's digest, which
// keys the cache, and pulls by that digest only if the cache does not hold
// it. It uses Helm's registry client with the request's Credentials and
// nothing else: no credentials file, no docker config, no writable $HOME.
//
// # Artifacts
//
// Artifact downloads a .tar.gz, checks it against the given digest and
// extracts it. Extraction refuses absolute paths, "..", symlinks leading
// outside the artifact (followed through other links too), hard links and
// device files, and stops at WithMaxSize bytes (256 MiB by default).
//
// # The cache
//
// An entry is built in a temporary directory inside the cache directory and
// renamed into place: an entry that exists is complete, and what a crash
// leaves behind is removed when the next process opens the cache.
// Concurrent fetches of one digest download it once. Once the cache holds
// more than its bound, the least recently used entries go, never the one
// just added. A directory returned earlier may be evicted later: render it
// before fetching many other sources.
//
// # Errors
//
// ChartNotFoundError, VersionNotFoundError (listing what is available),
// DigestMismatchError, AuthError, HTTPError, SizeLimitError and
// UnsafeArchiveError can be told apart with errors.As. IsTransient says
// whether trying again unchanged may help: network errors, timeouts, HTTP
// 5xx and 429; the rest needs a change by the user.
package fetch
