package releases

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// testCleanupGrace is how long test waits past --timeout for the deletes
// that end a run (the tests' delete policies).
const testCleanupGrace = time.Minute

type testOptions struct {
	timeout time.Duration
	logs    bool
}

// NewTestCommand is test: a release's tests, as helm test runs them.
func NewTestCommand(s *session.Session) *cobra.Command {
	o := &testOptions{}
	cmd := &cobra.Command{
		Use:   "test NAME",
		Short: "Run the tests of release NAME, as helm test does",
		Long: `test runs the tests of release NAME's current revision (Helm's test hooks,
helm.sh/hook: test, or objects annotated <operator-name>/test-hook), as helm test
does: one at a time in hook weight, then name order, each created anew and
waited for until it passes (a Job Complete, a Pod Succeeded) or fails, stopping
at the first failure. Once the run is over the tests are deleted as their hook
delete policies say (hook-succeeded, hook-failed); the others stay until the
next run or the release's deletion. A failed test's pods' logs are printed
where the cluster has them. The tests are the ones the revision rendered, as
its Secret stored them: no source or values are read. Exit code 1 when a test
failed or did not finish within --timeout.`,
		Example: `  wavekit test demo
  wavekit test demo --timeout 10m --logs`,
		Args: session.ExactArgs("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), s, args[0])
		},
	}
	cmd.Flags().DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long the tests may run; a test still running then has failed")
	cmd.Flags().BoolVar(&o.logs, "logs", false, "print the logs of every test's pods, not only of a failed one")
	return cmd
}

func (o *testOptions) run(ctx context.Context, s *session.Session, name string) error {
	if o.timeout <= 0 {
		return fmt.Errorf("--timeout %s: want a positive duration", o.timeout)
	}
	rel, cl, err := loadExistingRelease(ctx, s, name)
	if err != nil {
		return err
	}
	objects, err := currentRender(rel)
	if err != nil {
		return err
	}
	if len(engine.TestHooks(objects, rel.OperatorName)) == 0 {
		fmt.Fprintf(s.Stdout, "release %s has no tests in revision %d\n", rel, rel.Revision)
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout+testCleanupGrace)
	defer cancel()
	t, err := newReleaseTest(ctx, cl, rel, objects, s.Stdout)
	if err != nil {
		return err
	}
	t.logs = o.logs
	return t.run(ctx, time.Now().Add(o.timeout))
}

// currentRender returns the objects the release's current revision
// rendered, as its history stored them.
func currentRender(rel *release) ([]client.Object, error) {
	for _, h := range rel.History {
		if h.Revision == rel.Revision && h.Objects != nil {
			return h.objectsOf(), nil
		}
	}
	return nil, fmt.Errorf("release %s: revision %d is recorded without its objects, so its tests are unknown; apply the release again", rel, rel.Revision)
}

// testsChanged tells whether objects render other tests than the release's
// current revision: apply then records a revision even when it changes no
// object in the cluster (tests are never applied), so that wavekit test
// runs the tests of the last apply.
func testsChanged(rel *release, objects []client.Object) bool {
	if rel.secret == nil {
		return false
	}
	current, err := currentRender(rel)
	if err != nil {
		return true
	}
	_, before, errBefore := renderRecord(engine.TestHooks(current, rel.OperatorName))
	_, after, errAfter := renderRecord(engine.TestHooks(objects, rel.OperatorName))
	return errBefore != nil || errAfter != nil || before != after
}

// releaseTest runs the tests of one release and keeps its Secret's
// inventory, which holds the tests so that delete removes those that stay.
type releaseTest struct {
	store   releaseStore
	rel     *release
	objects []client.Object
	applier *engine.Applier
	waker   *waker
	pods    *podLogs
	out     io.Writer
	logs    bool   // print the logs of passed tests' pods too
	runName string // the test run's name: each wavekit test is a run of its own
}

func newReleaseTest(ctx context.Context, cl *session.Cluster, rel *release, objects []client.Object, out io.Writer) (*releaseTest, error) {
	applier, w, err := newReleaseApplier(ctx, cl, rel, objects) // w reports a test Job its TTL deleted, judged by its last state
	if err != nil {
		return nil, err
	}
	pods, err := newPodLogs(cl)
	if err != nil {
		return nil, err
	}
	return &releaseTest{
		store: releaseStore{client: cl.Client}, rel: rel, objects: objects, applier: applier, waker: w, pods: pods, out: out,
		runName: fmt.Sprintf("wavekit test %d %s", rel.Revision, time.Now().UTC().Format(time.RFC3339Nano)),
	}, nil
}

// run makes passes of one test run until it is over, and says how it went.
func (t *releaseTest) run(ctx context.Context, deadline time.Time) error {
	opts := engine.TestOptions{Run: t.runName, Deadline: deadline, Save: t.save, Observed: t.observed}
	for {
		res, err := t.applier.Test(ctx, t.rel.owner(), t.objects, t.rel.Inventory, opts)
		if saveErr := t.saveIfChanged(ctx, res.Inventory); err == nil {
			err = saveErr
		}
		switch {
		case err != nil && ctx.Err() != nil:
			return fmt.Errorf("release %s: tests timed out waiting for %s", t.rel, summarize(res.Waiting))
		case err != nil:
			return fmt.Errorf("release %s: running the tests: %w", t.rel, err)
		case res.Done:
			return t.report(res)
		}
		if err := t.waker.wait(ctx, res.Inventory); err != nil {
			return fmt.Errorf("release %s: tests timed out waiting for %s", t.rel, summarize(res.Waiting))
		}
	}
}

// report prints the tests that did not run and fails when one failed.
func (t *releaseTest) report(res engine.TestResult) error {
	for _, st := range res.Tests {
		if st.Phase == engine.TestPending {
			fmt.Fprintf(t.out, "Skipped %s\n", st.Object)
		}
	}
	if failed, ok := res.Failed(); ok {
		return fmt.Errorf("release %s: test %s", t.rel, failed)
	}
	fmt.Fprintf(t.out, "release %s: %d of %d tests passed\n", t.rel, len(res.Tests), len(res.Tests))
	return nil
}

// observed prints a test's outcome once it is known, and the logs of its
// pods before a delete policy removes them: always for a failed test, for a
// passed one with --logs.
func (t *releaseTest) observed(ctx context.Context, st engine.TestStatus) {
	if st.Phase == engine.TestFailed {
		fmt.Fprintf(t.out, "Failed  %s: %s\n", st.Object, st.Message)
	} else {
		fmt.Fprintf(t.out, "Passed  %s\n", st.Object)
	}
	if st.Phase == engine.TestFailed || t.logs {
		t.pods.print(ctx, t.out, st.Object)
	}
}

// save is the test run's SaveFunc: it records the tests in the release's
// inventory before they are created.
func (t *releaseTest) save(ctx context.Context, items []manifests.InventoryItem) error {
	next := *t.rel
	next.Inventory, next.Updated = items, time.Now()
	if err := t.store.save(ctx, &next); err != nil {
		return err
	}
	*t.rel = next
	return nil
}

// saveIfChanged records a pass's inventory (the tests' outcomes) when it
// differs from the release's.
func (t *releaseTest) saveIfChanged(ctx context.Context, items []manifests.InventoryItem) error {
	if items == nil || sameInventory(t.rel.Inventory, items) {
		return nil
	}
	if err := t.save(ctx, items); err != nil {
		return fmt.Errorf("recording the tests' outcomes: %w", err)
	}
	return nil
}
