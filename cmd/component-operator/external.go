package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/external/postgres"
)

// exitAfterExternalCreate, set to a dependent's Kind/Name in the operator's
// environment, makes the operator exit right after the provider created
// that dependent and before its ID is recorded: the crash the tests of
// external state tracking need. Nothing sets it in a deployment.
const exitAfterExternalCreate = "WAVEKIT_TEST_EXIT_AFTER_EXTERNAL_CREATE"

// bindExternalFlags registers the flags of external dependents and the
// providers the reference operator ships: PostgreSQL roles and databases.
func bindExternalFlags(fs *flag.FlagSet, opts *component.ReconcilerOptions) {
	opts.ExternalProviders = postgres.Providers()
	fs.DurationVar(&opts.External.PollInterval, "external-poll-interval", external.DefaultPollInterval,
		"how often an external dependent (a PostgreSQL database) is observed for drift when it sets no pollInterval")
	fs.IntVar(&opts.External.MaxConcurrentPolls, "external-max-concurrent-polls", external.DefaultMaxConcurrentPolls,
		"external dependents observed at once")
	if target := os.Getenv(exitAfterExternalCreate); target != "" {
		opts.External.AfterCreate = func(_ context.Context, req external.Request, _ external.Observation) error {
			if req.Kind+"/"+req.Name == target {
				fmt.Fprintf(os.Stderr, "%s: exiting after creating %s\n", exitAfterExternalCreate, target)
				os.Exit(3)
			}
			return nil
		}
	}
}
