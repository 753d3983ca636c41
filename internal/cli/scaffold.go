package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/scaffold"
	"github.com/wavekit-dev/wavekit/internal/version"
	"github.com/wavekit-dev/wavekit/pkg/testenv/k8sbin"
)

// newScaffoldCommand returns `wavekit scaffold DIR`, which writes a new
// component operator project.
func newScaffoldCommand(s *session.Session) *cobra.Command {
	opts := scaffold.Options{Self: scaffold.Self{Version: version.String(), Checkout: k8sbin.Checkout}}
	cmd := &cobra.Command{
		Use:   "scaffold DIR",
		Short: "Start a new component operator project in DIR",
		Long: `scaffold writes a Go project in the kubebuilder layout for a component operator
that serves one custom resource kind with wavekit: go.mod, main.go, the API
types in api/<version>/, the reconciler and an embedded sample (a Helm chart, a
kustomization, Go templates, or a custom Go generator) in pkg/operator/, a
Makefile (generate, manifests, test, build, run, docker-build), a Helm chart
for the operator, a Dockerfile, a sample, a README and an envtest suite.

go.mod requires this wavekit's version when it is a release. A wavekit built
from a checkout is no release: go.mod then replaces wavekit with that checkout,
so the project builds as it is, and scaffold says so.

DIR must be new or empty; nothing is written when an option is invalid.`,
		Example: `  wavekit scaffold ./redis-operator --module github.com/acme/redis-operator \
    --group cache.acme.io --kind Redis --generator helm
  cd redis-operator && make generate manifests test`,
		Args: session.ExactArgs("DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.WavekitReplace != "" {
				abs, err := filepath.Abs(opts.WavekitReplace)
				if err != nil {
					return fmt.Errorf("scaffold: --wavekit-replace %s: %w", opts.WavekitReplace, err)
				}
				opts.WavekitReplace = abs
			}
			files, err := scaffold.Generate(args[0], opts)
			if err != nil {
				return fmt.Errorf("scaffold %s: %w", args[0], err)
			}
			fmt.Fprintf(s.Stdout, "wrote %d files to %s\n", len(files), args[0])
			wavekit, err := opts.Wavekit()
			if err != nil {
				return fmt.Errorf("scaffold %s: %w", args[0], err)
			}
			if wavekit.Note != "" {
				fmt.Fprintln(s.Stdout, wavekit.Note)
			}
			fetch := ""
			if wavekit.Replace == "" {
				// go.sum cannot hold the sums of a wavekit release yet.
				fetch = "go mod tidy && "
			}
			fmt.Fprintf(s.Stdout, "next: cd %s && %smake generate manifests test\n", args[0], fetch)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Module, "module", "", "Go module path of the new project (required)")
	f.StringVar(&opts.Group, "group", "", "API group of the custom resource, e.g. cache.acme.io (required)")
	f.StringVar(&opts.Version, "version", "v1alpha1", "API version of the custom resource")
	f.StringVar(&opts.Kind, "kind", "", "kind of the custom resource, e.g. Redis (required)")
	f.StringVar(&opts.OperatorName, "operator-name", "", "operator name: annotation prefix, field owner, finalizer (default: the group)")
	f.StringVar(&opts.Image, "image", "", "operator image for the Makefile and chart (default: <kind>-operator:latest)")
	f.StringVar(&opts.Generator, "generator", "", "how objects are rendered: "+strings.Join(scaffold.Generators, ", ")+" (required)")
	f.StringVar(&opts.WavekitVersion, "wavekit-version", "", "wavekit version that go.mod requires (default: this wavekit's, if it is a release)")
	f.StringVar(&opts.WavekitReplace, "wavekit-replace", "", "local wavekit checkout to replace the module with, dependency versions read from it (default: this wavekit's checkout, if it is not a release)")
	return cmd
}
