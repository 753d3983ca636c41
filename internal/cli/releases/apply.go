package releases

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/cli/input"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

type applyOptions struct {
	input           input.Options
	wait            bool
	timeout         time.Duration
	namespacePolicy string
	drift           driftOptions
	atomic          bool
	healthChecks    string
	createNamespace bool
	chart           input.ChartOptions
	git             input.GitOptions
	trace           traceOptions
}

// NewApplyCommand is apply: a source applied as a release, wave by wave.
func NewApplyCommand(s *session.Session) *cobra.Command {
	o := &applyOptions{}
	cmd := &cobra.Command{
		Use:   "apply NAME SOURCE",
		Short: "Apply a source as release NAME, wave by wave",
		Long: `apply renders SOURCE for release NAME and applies the objects in waves with the
same applier as a wavekit operator: a wave starts when every object of the
previous one is ready. The release's inventory is saved in the Secret
wavekit.<NAME> of the release namespace before any object is created, so
applying again prunes the objects that left the manifests (in delete waves).

Without --wait, apply writes what it can and returns once the remaining waves
wait for objects to become ready; run it again, or use --wait to stay until
every wave is ready (or --timeout passes, which is an error).

SOURCE may also be a chart of an OCI registry (oci://host/path/name) or, with
--repo, of a Helm repository; --verify checks it before anything is rendered,
as the operator's spec.chart.verify does: a cosign signature with --key, or the
chart's .prov file with --keyring. A chart's dependencies that charts/ does not
hold are fetched, and verified, as render fetches them (see wavekit render
--help).

Progress is a table redrawn in place on a terminal, one line per change
otherwise.`,
		Example: `  wavekit apply demo ./chart -f values.yaml --set replicas=3
  wavekit apply demo ./overlays/prod -n prod --create-namespace --wait --timeout 10m
  wavekit apply web oci://ghcr.io/acme/charts/web --version 1.2.3 --verify --key cosign.pub
  wavekit apply web web --repo https://charts.example.com --verify --keyring pubring.gpg`,
		Args: session.ExactArgs("NAME SOURCE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.trace.run(cmd.Context(), "apply", args[0], func(ctx context.Context) error { return o.run(ctx, s, args[0], args[1]) })
		},
	}
	o.trace.addFlags(cmd)
	o.input.AddFlags(cmd)
	o.chart.AddFlags(cmd)
	o.input.VerifyDependencies(o.chart.Verification())
	o.git.AddFlags(cmd)
	cmd.Flags().BoolVar(&o.wait, "wait", false, "wait until every wave is applied and ready")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long --wait waits")
	cmd.Flags().BoolVar(&o.createNamespace, "create-namespace", false, "create the release namespace if it does not exist, as helm install --create-namespace (it is not part of the release)")
	cmd.Flags().BoolVar(&o.atomic, "atomic", false, "on failure or timeout, roll back to the last Ready revision (delete the release when the install fails), as helm --atomic; implies --wait")
	cmd.Flags().StringVar(&o.namespacePolicy, "namespace-policy", string(manifests.NamespaceCreate),
		"create: create missing namespaces the objects need (kept in the inventory, never deleted with the release); do-not-create: refuse to apply")
	o.drift.addFlags(cmd)
	cmd.Flags().StringVar(&o.healthChecks, "health-checks", "",
		"a YAML list of CEL health checks {apiVersion, kind, current, failed, inProgress} for kinds kstatus cannot read; used wave by wave and kept in the release")
	return cmd
}

func (o *applyOptions) run(ctx context.Context, s *session.Session, name, source string) error {
	namespacePolicy, err := manifests.ParseNamespacePolicy(o.namespacePolicy)
	if err != nil {
		return fmt.Errorf("--namespace-policy: %w", err)
	}
	fetchSource := o.chart.Fetch
	if o.git.Takes(source, o.chart.Repo()) {
		fetchSource = o.git.Fetch
	}
	src, err := fetchSource(ctx, source, s.Stderr)
	if err != nil {
		return err
	}
	defer src.Cleanup()
	next, err := renderNextRevision(ctx, s, &o.input, name, src)
	if err != nil {
		return err
	}
	drift, err := o.drift.settings(next.rel.Drift)
	if err != nil {
		return err
	}
	checks, err := readHealthChecks(o.healthChecks, next.rel.HealthChecks)
	if err != nil {
		return err
	}
	if o.createNamespace {
		if err := createReleaseNamespace(ctx, s, next.cluster, next.rel.Namespace); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a, err := newReleaseApply(ctx, next.cluster, next.store, next.rel, next.objects, s)
	if err != nil {
		return err
	}
	a.source, a.namespacePolicy, a.drift, a.healthChecks = src.Recorded, namespacePolicy, drift, checks
	a.wrote = testsChanged(next.rel, next.objects) // a revision of its own, whose tests wavekit test runs
	err = a.run(ctx, o.wait || o.atomic, o.timeout)
	if err == nil || !o.atomic || a.rel.secret == nil {
		return err // without --atomic, or nothing was written
	}
	return recoverAtomic(ctx, s, next.cluster, a.rel, err, o.timeout)
}

// createReleaseNamespace creates namespace unless it exists, and says so
// when it did.
func createReleaseNamespace(ctx context.Context, s *session.Session, cl *session.Cluster, namespace string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	err := cl.Client.Create(ctx, ns, client.FieldOwner(s.OperatorName))
	switch {
	case apierrors.IsAlreadyExists(err):
		return nil
	case err != nil:
		return fmt.Errorf("--create-namespace: creating namespace %s: %w", namespace, err)
	}
	fmt.Fprintf(s.Stderr, "created namespace %s\n", namespace)
	return nil
}

// recoverAtomic undoes a failed apply --atomic: a rollback to the last Ready
// revision, or the deletion of a release whose install failed.
func recoverAtomic(ctx context.Context, s *session.Session, cl *session.Cluster, rel *release, failure error, timeout time.Duration) error {
	if _, err := rollbackTarget(rel.History, rel.Revision, 0); err != nil {
		d, err := newReleaseDelete(ctx, cl, rel, s)
		if err == nil {
			err = d.run(ctx, true, timeout)
		}
		if err != nil {
			return fmt.Errorf("%w; --atomic: deleting the release whose install failed: %w", failure, err)
		}
		return fmt.Errorf("%w; --atomic: the install failed, so the release is deleted", failure)
	}
	failed := rel.Revision
	if err := rollbackRelease(ctx, s, cl, rel, 0, true, timeout); err != nil {
		return fmt.Errorf("%w; --atomic: rolling back: %w", failure, err)
	}
	return fmt.Errorf("%w; --atomic: rolled back to revision %d (revision %d failed)", failure, rel.History[len(rel.History)-1].RolledBackTo, failed)
}

// maxSettlePasses bounds the passes of one apply that all write something:
// more means the objects never settle (something keeps changing them).
const maxSettlePasses = 100

// run makes Apply passes: again at once after a pass that wrote, after an
// event or a short poll while waiting, and stops when done, when a pass
// without --wait wrote nothing, or at the timeout.
func (a *releaseApply) run(ctx context.Context, wait bool, timeout time.Duration) error {
	if wait {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	for settling := 0; ; {
		res, err := a.pass(ctx)
		a.progress.update(res)
		switch {
		case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
			return a.timedOut(timeout, res)
		case err != nil:
			return err
		case res.Done:
			a.reportBlocked(res)
			a.progress.done(a.rel, res)
			return nil
		case res.Changed && settling < maxSettlePasses:
			settling++
			continue
		case res.Changed:
			return fmt.Errorf("release %s does not settle: %d passes in a row changed objects", a.rel, settling)
		case !wait:
			a.reportBlocked(res)
			a.progress.pending(a.rel, res)
			return nil
		}
		settling = 0
		if err := a.waker.wait(ctx, res.Inventory); err != nil {
			return a.timedOut(timeout, res)
		}
	}
}

func (a *releaseApply) timedOut(timeout time.Duration, res engine.Result) error {
	return fmt.Errorf("release %s: timed out after %s in wave %d waiting for %s", a.rel, timeout, res.Wave, summarize(res.Waiting))
}

func (a *releaseApply) reportBlocked(res engine.Result) {
	if len(res.Blocked) > 0 {
		fmt.Fprintf(a.stderr, "warning: %s\n", res.BlockedMessage())
	}
}
