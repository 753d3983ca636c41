package input

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/verify"
)

// VerifyOptions are the flags that verify what a command fetches from a
// repository before it is rendered, as the operator's spec.chart.verify
// and spec.chartDependencies.verify do: an oci:// chart by its cosign
// signature (--key), a chart of a Helm repository by its .prov file
// (--keyring). They cover a chart of --repo or oci:// and, once
// Options.VerifyDependencies is given them, the dependencies a chart
// fetches.
type VerifyOptions struct {
	verify  bool
	keys    []string
	keyring string
	// dependencies: the flags verify the dependencies of a chart too.
	dependencies bool

	mu sync.Mutex
	// verifiers are those made of the key files, by kind ("cosign",
	// "helm"): the files are read once.
	verifiers map[string]fetch.Verifier
}

// AddFlags adds --verify, --key and --keyring to cmd.
func (o *VerifyOptions) AddFlags(cmd *cobra.Command) {
	flags := cmd.Flags()
	flags.BoolVar(&o.verify, "verify", false, "verify what is fetched before it is rendered: a chart of --repo or oci:// and the dependencies a chart fetches; a cosign signature with --key (oci://), a .prov file with --keyring (a Helm repository)")
	flags.StringArrayVar(&o.keys, "key", nil, "with --verify, for oci:// charts: a cosign public key file (PEM); repeat to trust several, any one suffices")
	flags.StringVar(&o.keyring, "keyring", "", "with --verify, for charts of a Helm repository: a PGP keyring file (binary or armored) that verifies their .prov files")
}

// Asked reports whether any of the flags is given.
func (o *VerifyOptions) Asked() bool {
	return o != nil && (o.verify || len(o.keys) > 0 || o.keyring != "")
}

// check refuses keys without --verify.
func (o *VerifyOptions) check() error {
	if o != nil && !o.verify && (len(o.keys) > 0 || o.keyring != "") {
		return errors.New("--key and --keyring need --verify")
	}
	return nil
}

// Verifier returns the verifier the flags ask for a chart of repository,
// if any; what names the chart in messages ("chart", "dependency").
func (o *VerifyOptions) Verifier(repository, what string) (fetch.Verifier, error) {
	if o == nil {
		return nil, nil
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	oci := strings.HasPrefix(repository, "oci://")
	switch {
	case !o.verify:
		return nil, nil
	case oci && len(o.keys) == 0:
		return nil, fmt.Errorf("--verify of an oci:// %s needs --key FILE (a cosign public key)", what)
	case !oci && o.keyring == "":
		return nil, fmt.Errorf("--verify of a %s needs --keyring FILE (a PGP keyring)", ofHelmRepository(what))
	case oci:
		return o.made("cosign", func() (fetch.Verifier, error) {
			keys, err := readFiles("--key", o.keys...)
			if err != nil {
				return nil, err
			}
			return verify.NewCosign(keys, nil)
		})
	}
	return o.made("helm", func() (fetch.Verifier, error) {
		keyrings, err := readFiles("--keyring", o.keyring)
		if err != nil {
			return nil, err
		}
		return verify.NewHelm(keyrings, nil)
	})
}

// ofHelmRepository names a chart of a Helm repository in messages: the
// chart SOURCE names with --repo, or a dependency.
func ofHelmRepository(what string) string {
	if what == "chart" {
		return "chart of --repo"
	}
	return what + " of a Helm repository"
}

// made returns the verifier of kind, made by build the first time.
func (o *VerifyOptions) made(kind string, build func() (fetch.Verifier, error)) (fetch.Verifier, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if v, ok := o.verifiers[kind]; ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	if o.verifiers == nil {
		o.verifiers = map[string]fetch.Verifier{}
	}
	o.verifiers[kind] = v
	return v, nil
}
