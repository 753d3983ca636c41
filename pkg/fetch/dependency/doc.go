// Package dependency brings the dependencies a Helm chart lists in its
// Chart.yaml but does not hold in charts/, as `helm dependency build`
// does, for one render: the charts of a Git repository, a served folder, a
// Flux artifact or a local directory usually keep their dependencies out
// of charts/.
//
//	r := dependency.NewResolver(fetcher)
//	res, err := r.Resolve(ctx, dependency.Request{
//		Chart: ch, Dir: "/src/charts/web", Root: "/src", Values: values,
//		Access: dependency.Access{MaxAge: 5 * time.Minute},
//	})
//	// res.Chart is ch with every dependency the render needs added;
//	// res.Dependencies says which version of each was used.
//
// # Which dependencies are fetched
//
// Only those the render needs: a dependency that charts/ holds is used as
// it is, and one whose tags or condition turn it off in the render's values
// is not fetched. Conditions are read as Helm reads them (the first path
// that holds a boolean decides, tags come first); a condition path that a
// not yet fetched dependency's own defaults could set (it starts with that
// dependency's name or alias) cannot be decided without them, so that
// dependency is fetched, and Helm's own dependency processing decides at
// render time. Dependencies of dependencies are resolved the same way,
// with the values Helm reads them in.
//
// # Where they come from
//
// A dependency's repository is https:// or http:// (a Helm repository and
// its index.yaml), oci:// (the chart is <repository>/<name>), file://
// (a chart directory relative to the chart that lists it, which must stay
// inside Request.Root), or @name and alias:name (a repository that
// Access.Repositories names). A dependency without a repository must be in
// charts/, as Helm requires.
//
// # Which version
//
// When the chart has a Chart.lock, it must match Chart.yaml by Helm's
// digest (what `helm dependency update` writes): then each dependency is
// taken at the version the lock pins; a lock out of sync is a LockError,
// as `helm dependency build` refuses it. Without a lock, the highest
// version the range allows (pre-releases only for a range that names
// one), as `helm dependency update` picks it.
//
// # Cost
//
// A resolution is remembered for Access.MaxAge by who asked
// (Access.Identity), the repository, the chart's name and the version
// asked for: within it, a render reads no credentials and sends no
// request. Past it, the Fetcher's own caches apply: an index or tag list
// is read once per repository and MaxAge whoever asks, and an archive is
// downloaded once per digest into the Fetcher's Cache, whatever Component
// or render asked. A chart loaded from the cache is kept in memory by its
// digest for the next render.
//
// # Errors
//
// LockError, ReferenceError and LocalPathError say what is wrong with the
// chart as written; an Error names the dependency a fetch failed for and
// wraps the fetch package's error (fetch.IsTransient tells whether trying
// again may help).
package dependency
