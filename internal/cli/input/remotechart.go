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
	"github.com/wavekit-dev/wavekit/pkg/fetch/verify"
)

// ChartOptions are the flags of a chart taken from a Helm repository or an
// OCI registry rather than a local directory, and of its verification, so
// that a user can check locally what the operator's spec.chart.verify
// accepts.
type ChartOptions struct {
	repo, version string
	insecure      bool
	verify        bool
	keys          []string
	keyring       string
}

// AddFlags adds the flags of a chart from a repository to cmd.
func (o *ChartOptions) AddFlags(cmd *cobra.Command) {
	flags := cmd.Flags()
	flags.StringVar(&o.repo, "repo", "", "a Helm repository URL: SOURCE is then the name of a chart in it, as helm install --repo")
	flags.StringVar(&o.version, "version", "", "for a chart of --repo or oci://: a semver constraint (default: the latest stable version)")
	flags.BoolVar(&o.insecure, "insecure", false, "for an oci:// chart: speak plain HTTP to the registry")
	flags.BoolVar(&o.verify, "verify", false, "verify the chart before it is rendered: its cosign signature with --key (oci://), or its .prov file with --keyring (--repo)")
	flags.StringArrayVar(&o.keys, "key", nil, "with --verify, an oci:// chart: a cosign public key file (PEM); repeat to trust several, any one suffices")
	flags.StringVar(&o.keyring, "keyring", "", "with --verify, a chart of --repo: a PGP keyring file (binary or armored) that verifies its .prov file")
}

// remote reports whether source names a chart of a repository or registry.
// Repo is --repo: the Helm repository SOURCE names a chart of, or "".
func (o *ChartOptions) Repo() string { return o.repo }

func (o *ChartOptions) remote(source string) bool {
	return o.repo != "" || strings.HasPrefix(source, "oci://")
}

// Fetch returns the directory to render for source: source itself when it
// is a local directory, else the fetched, verified chart, with what to
// record as the release's source and a function that removes it.
func (o *ChartOptions) Fetch(ctx context.Context, source string, stderr io.Writer) (dir, recorded string, cleanup func(), err error) {
	if !o.remote(source) {
		if o.verify || len(o.keys) > 0 || o.keyring != "" || o.version != "" {
			return "", "", nil, errors.New("--verify, --key, --keyring and --version are for a chart of --repo or oci://; SOURCE is a local directory")
		}
		return source, AbsPath(source), func() {}, nil
	}
	req, err := o.request(source)
	if err != nil {
		return "", "", nil, err
	}
	tmp, err := os.MkdirTemp("", "wavekit-chart-")
	if err != nil {
		return "", "", nil, err
	}
	cleanup = func() { _ = os.RemoveAll(tmp) }
	cache, err := fetch.NewCache(tmp, fetch.DefaultMaxSize)
	if err == nil {
		var fetched fetch.Fetched
		fetched, err = fetch.NewFetcher(cache).Chart(ctx, req)
		if err == nil {
			if fetched.Verified != "" {
				fmt.Fprintf(stderr, "verified: %s\n", fetched.Verified)
			}
			return fetched.Dir, fetched.URL, cleanup, nil
		}
	}
	cleanup()
	return "", "", nil, err
}

// request is the fetch request of source with the flags.
func (o *ChartOptions) request(source string) (fetch.ChartRequest, error) {
	req := fetch.ChartRequest{Repository: o.repo, Name: source, Version: o.version, Insecure: o.insecure}
	if o.repo == "" {
		i := strings.LastIndex(source, "/")
		req.Repository, req.Name = source[:i], source[i+1:]
	}
	verifier, err := o.verifier(req.Repository)
	req.Verifier = verifier
	return req, err
}

// verifier returns the verifier the flags ask for, if any.
func (o *ChartOptions) verifier(repository string) (fetch.Verifier, error) {
	oci := strings.HasPrefix(repository, "oci://")
	switch {
	case !o.verify && (len(o.keys) > 0 || o.keyring != ""):
		return nil, errors.New("--key and --keyring need --verify")
	case !o.verify:
		return nil, nil
	case oci && len(o.keys) == 0:
		return nil, errors.New("--verify of an oci:// chart needs --key FILE (a cosign public key)")
	case oci:
		keys, err := readFiles("--key", o.keys...)
		if err != nil {
			return nil, err
		}
		return verify.NewCosign(keys, nil)
	case o.keyring == "":
		return nil, errors.New("--verify of a chart of --repo needs --keyring FILE (a PGP keyring)")
	}
	keyrings, err := readFiles("--keyring", o.keyring)
	if err != nil {
		return nil, err
	}
	return verify.NewHelm(keyrings, nil)
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
