package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"helm.sh/helm/v3/pkg/chart"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/dependency"
	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
)

// indexMaxAge is how long, within one run, an index or a tag list read is
// used: each repository is asked once a run.
const indexMaxAge = 5 * time.Minute

// DependencyOptions are the flags of the dependencies a chart lists in
// its Chart.yaml but does not hold in charts/: they are fetched when it
// is rendered, as `helm dependency build` fetches them, the names
// @name and alias:name and the credentials of the repositories read from
// Helm's repositories file, into a cache that later runs use.
type DependencyOptions struct {
	repositoryConfig string
	plainHTTP        bool
	cacheDir         string
	verify           *VerifyOptions
}

// AddFlags adds the flags of dependencies to cmd.
func (o *DependencyOptions) AddFlags(cmd *cobra.Command) {
	flags := cmd.Flags()
	flags.StringVar(&o.repositoryConfig, "repository-config", DefaultRepositoryConfig(),
		"Helm's repositories file (helm repo add writes it): the repositories a chart's dependencies name by @name or alias:name, and their credentials")
	flags.BoolVar(&o.plainHTTP, "plain-http", false, "speak plain HTTP to the OCI registries of a chart's dependencies, as helm dependency build --plain-http")
	flags.StringVar(&o.cacheDir, "chart-cache", DefaultChartCache(),
		"the directory that keeps the dependencies fetched, for later runs (at most 1 GiB, the least recently used go first)")
}

// VerifyWith makes v's flags verify the dependencies fetched too, each by
// its repository's kind.
func (o *DependencyOptions) VerifyWith(v *VerifyOptions) {
	v.dependencies = true
	o.verify = v
}

// Resolver returns what brings the dependencies of the charts one command
// renders; it tells stderr which ones were used.
func (o *DependencyOptions) Resolver(stderr io.Writer) *Dependencies {
	return &Dependencies{opts: o, stderr: stderr}
}

// Dependencies brings the dependencies of the charts one command renders
// (a helm.DependencyResolver), from the repositories of Helm's
// repositories file, through the chart cache.
type Dependencies struct {
	opts   *DependencyOptions
	stderr io.Writer
	// rootIs says what the file:// dependencies must stay inside.
	rootIs string

	mu sync.Mutex
	// shared resolves over the chart cache; made when a chart first
	// misses a dependency.
	shared *dependency.Resolver
	// verified counts the dependencies --verify verified.
	verified int
}

var _ helm.DependencyResolver = (*Dependencies)(nil)

// HelmOptions makes a chart of src bring its dependencies with d, its
// file:// ones inside src's root.
func (d *Dependencies) HelmOptions(src Local) []helm.Option {
	root, is := src.root()
	d.rootIs = is
	return []helm.Option{helm.WithDependencies(d), helm.WithSourceRoot(root)}
}

// ResolveDependencies brings what the render of req needs, holding the
// chart cache while it does, and tells stderr what was used.
func (d *Dependencies) ResolveDependencies(ctx context.Context, req helm.DependencyRequest) (*chart.Chart, error) {
	if !dependency.Missing(req.Chart) {
		return req.Chart, nil
	}
	r, release, err := d.resolver(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	res, err := r.Resolve(ctx, dependency.Request{Chart: req.Chart, Dir: req.Dir, Root: req.Root, Values: req.Values, Access: d.access()})
	if err != nil {
		return nil, d.explain(err, req.Root)
	}
	d.report(res.Dependencies)
	return res.Chart, nil
}

// resolver returns the resolver of one resolution and what to call once
// it is done: over the chart cache, held until then; over a temporary
// cache of its own, said on stderr, when another run holds the chart
// cache too long. What the resolution brings is loaded in memory, so the
// temporary cache goes when it is done.
func (d *Dependencies) resolver(ctx context.Context) (*dependency.Resolver, func(), error) {
	dir := d.opts.cacheDir
	if dir == "" {
		return nil, nil, errors.New("--chart-cache: give the directory that keeps the dependencies fetched")
	}
	unlock, err := lockCache(ctx, dir)
	switch {
	case errors.Is(err, errCacheBusy):
		fmt.Fprintf(d.stderr, "chart cache %s: %v; this run fetches into a temporary cache\n", dir, errCacheBusy)
		return temporaryResolver()
	case err != nil:
		return nil, nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shared == nil {
		cache, err := fetch.NewCache(dir, chartCacheBytes)
		if err != nil {
			unlock()
			return nil, nil, fmt.Errorf("chart cache: %w", err)
		}
		d.shared = dependency.NewResolver(fetch.NewFetcher(cache))
	}
	return d.shared, unlock, nil
}

// temporaryResolver resolves over a cache of its own, removed by done.
func temporaryResolver() (r *dependency.Resolver, done func(), err error) {
	tmp, err := os.MkdirTemp("", "wavekit-charts-")
	if err != nil {
		return nil, nil, err
	}
	done = func() { _ = os.RemoveAll(tmp) }
	cache, err := fetch.NewCache(tmp, chartCacheBytes)
	if err != nil {
		done()
		return nil, nil, err
	}
	return dependency.NewResolver(fetch.NewFetcher(cache)), done, nil
}

// access is how the dependencies reach their repositories: those of
// Helm's repositories file, verified as --verify asks.
func (d *Dependencies) access() dependency.Access {
	o := d.opts
	a := dependency.Access{
		Identity:     "wavekit",
		Repositories: repositoriesFile(o.repositoryConfig, o.plainHTTP),
		NamesFrom:    "Helm's repositories file " + o.repositoryConfig,
		MaxAge:       indexMaxAge,
	}
	if o.verify.Asked() {
		a.Verifier = func(_ context.Context, repository string) (fetch.Verifier, error) {
			return o.verify.Verifier(repository, "dependency")
		}
	}
	return a
}

// report tells stderr each dependency used: its name (and chart, under
// an alias), version and repository, and what verified it.
func (d *Dependencies) report(rs []dependency.Resolved) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range rs {
		name := r.Path
		if path.Base(r.Path) != r.Name {
			name += " (chart " + r.Name + ")"
		}
		fmt.Fprintf(d.stderr, "dependency: %s %s from %s\n", name, r.Version, r.Repository)
		if r.Verified != "" {
			d.verified++
			fmt.Fprintf(d.stderr, "verified: dependency %s: %s\n", r.Path, r.Verified)
		}
	}
}

// checkVerified refuses a render that --verify verified nothing of:
// neither the source nor a dependency came from a repository.
func (d *Dependencies) checkVerified(src Local) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.opts.verify.Asked() || src.Verified || d.verified > 0 {
		return nil
	}
	return errors.New("--verify verified nothing: SOURCE is not a chart of --repo or oci://, and none of the dependencies it renders comes from a repository")
}

// explain adds to a failed resolution what the user can do about it.
func (d *Dependencies) explain(err error, root string) error {
	var (
		ref   *dependency.ReferenceError
		auth  *fetch.AuthError
		local *dependency.LocalPathError
	)
	file := d.opts.repositoryConfig
	switch {
	case errors.As(err, &ref) && (strings.HasPrefix(ref.Repository, "@") || strings.HasPrefix(ref.Repository, "alias:")):
		return session.Hint(err, fmt.Sprintf("helm repo add NAME URL adds a repository to %s; --repository-config reads another file", file))
	case errors.As(err, &auth) && auth.Anonymous:
		return session.Hint(err, fmt.Sprintf("give its credentials in %s: helm repo add NAME URL --username USER --password-stdin; --repository-config reads another file", file))
	case errors.As(err, &local) && strings.Contains(local.Reason, "leaves the source"):
		return session.Hint(err, fmt.Sprintf("the chart's file:// dependencies must stay inside %s, %s", root, d.rootIs))
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return session.Hint(err, "--plain-http speaks plain HTTP to the OCI registries of the dependencies")
	}
	return err
}
