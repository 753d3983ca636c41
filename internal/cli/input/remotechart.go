package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// ChartOptions are the flags of a chart taken from a Helm repository or an
// OCI registry rather than a local directory, and of its verification, so
// that a user can check locally what the operator's spec.chart.verify
// accepts.
type ChartOptions struct {
	repo, version string
	insecure      bool
	verify        VerifyOptions
}

// AddFlags adds the flags of a chart from a repository to cmd.
func (o *ChartOptions) AddFlags(cmd *cobra.Command) {
	flags := cmd.Flags()
	flags.StringVar(&o.repo, "repo", "", "a Helm repository URL: SOURCE is then the name of a chart in it, as helm install --repo")
	flags.StringVar(&o.version, "version", "", "for a chart of --repo or oci://: a semver constraint (default: the latest stable version)")
	flags.BoolVar(&o.insecure, "insecure", false, "for an oci:// chart: speak plain HTTP to the registry")
	o.verify.AddFlags(cmd)
}

// Verification is what --verify, --key and --keyring ask for, to verify
// the chart's dependencies too (Options.VerifyDependencies).
func (o *ChartOptions) Verification() *VerifyOptions { return &o.verify }

// remote reports whether source names a chart of a repository or registry.
// Repo is --repo: the Helm repository SOURCE names a chart of, or "".
func (o *ChartOptions) Repo() string { return o.repo }

func (o *ChartOptions) remote(source string) bool {
	return o.repo != "" || strings.HasPrefix(source, "oci://")
}

// Fetch returns what to render for source: source itself when it is a
// local directory, else the fetched, verified chart (its file://
// dependencies kept inside it), with what to record as the release's
// source.
func (o *ChartOptions) Fetch(ctx context.Context, source string, stderr io.Writer) (Local, error) {
	if !o.remote(source) {
		if o.version != "" || o.verify.Asked() && !o.verify.dependencies {
			return Local{}, errors.New("--verify, --key, --keyring and --version are for a chart of --repo or oci://; SOURCE is a local directory")
		}
		return LocalDir(source), nil
	}
	req, err := o.request(source)
	if err != nil {
		return Local{}, err
	}
	tmp, err := os.MkdirTemp("", "wavekit-chart-")
	if err != nil {
		return Local{}, err
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	fetched, err := fetchChart(ctx, tmp, req)
	if err != nil {
		cleanup()
		return Local{}, err
	}
	if fetched.Verified != "" {
		fmt.Fprintf(stderr, "verified: %s\n", fetched.Verified)
	}
	return Local{Dir: fetched.Dir, Root: fetched.Dir, RootIs: "the chart fetched", Recorded: fetched.URL, Verified: req.Verifier != nil, Cleanup: cleanup}, nil
}

// fetchChart fetches req into a cache in dir.
func fetchChart(ctx context.Context, dir string, req fetch.ChartRequest) (fetch.Fetched, error) {
	cache, err := fetch.NewCache(dir, fetch.DefaultMaxSize)
	if err != nil {
		return fetch.Fetched{}, err
	}
	return fetch.NewFetcher(cache).Chart(ctx, req)
}

// request is the fetch request of source with the flags.
func (o *ChartOptions) request(source string) (fetch.ChartRequest, error) {
	req := fetch.ChartRequest{Repository: o.repo, Name: source, Version: o.version, Insecure: o.insecure}
	if o.repo == "" {
		i := strings.LastIndex(source, "/")
		req.Repository, req.Name = source[:i], source[i+1:]
	}
	verifier, err := o.verify.Verifier(req.Repository, "chart")
	req.Verifier = verifier
	return req, err
}

// readFiles reads files by their base names, for messages.
func readFiles(flag string, files ...string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		out[filepath.Base(file)] = data
	}
	return out, nil
}
