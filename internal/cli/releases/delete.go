package releases

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

type deleteOptions struct {
	wait           bool
	timeout        time.Duration
	ignoreNotFound bool
	trace          traceOptions
}

// NewDeleteCommand is delete: a release's objects deleted in delete waves.
func NewDeleteCommand(s *session.Session) *cobra.Command {
	o := &deleteOptions{}
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete the objects of release NAME in delete waves",
		Long: `delete removes every object of release NAME's inventory in delete-order waves:
instances of the release's own CRDs first, CRDs and Namespaces last, each
stage only once the one before is gone. Objects with an orphan delete policy
stay, without the owner label. The Secret wavekit.<NAME> goes last.

The delete hooks (helm.sh/hook: pre-delete, post-delete) that the last apply
rendered run in their delete waves, with the values of that apply.

delete does not start while objects of the types the release's CRDs (or
APIServices) serve exist that the release does not own: it names the types
and how many, and exits with code 1 without changing anything.

Without --wait, delete returns once the remaining objects wait to go (a
finalizer, for example); run it again, or use --wait.`,
		Example: `  wavekit delete demo
  wavekit delete demo -n prod --wait --timeout 2m`,
		Args: session.ExactArgs("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.trace.run(cmd.Context(), "delete", args[0], func(ctx context.Context) error { return o.run(ctx, s, args[0]) })
		},
	}
	o.trace.addFlags(cmd)
	cmd.Flags().BoolVar(&o.wait, "wait", false, "wait until every object is gone")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long --wait waits")
	cmd.Flags().BoolVar(&o.ignoreNotFound, "ignore-not-found", false, "exit 0 when the release does not exist (say so on stderr)")
	return cmd
}

func (o *deleteOptions) run(ctx context.Context, s *session.Session, name string) error {
	cl, err := s.Connect(ctx)
	if err != nil {
		return err
	}
	store := releaseStore{client: cl.Client}
	rel, err := store.get(ctx, cl.Namespace, name)
	if err != nil {
		return err
	}
	if rel == nil && o.ignoreNotFound {
		fmt.Fprintf(s.Stderr, "release %s/%s not found: nothing to delete\n", cl.Namespace, name)
		return nil
	}
	if rel == nil {
		return session.Hint(fmt.Errorf("release %s/%s not found: no secret %s%s", cl.Namespace, name, secretPrefix, name),
			"wavekit list -A shows the releases; --ignore-not-found exits 0 for a release that is gone")
	}
	if rel.OperatorName == "" {
		rel.OperatorName = s.OperatorName
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d, err := newReleaseDelete(ctx, cl, rel, s)
	if err != nil {
		return err
	}
	return d.run(ctx, o.wait, o.timeout)
}

// newReleaseDelete watches the cluster for a deletion of rel; ctx bounds
// the watches.
func newReleaseDelete(ctx context.Context, cl *session.Cluster, rel *release, s *session.Session) (*releaseDelete, error) {
	applier, w, err := newReleaseApplier(ctx, cl, rel, nil)
	if err != nil {
		return nil, err
	}
	return &releaseDelete{store: releaseStore{client: cl.Client}, rel: rel, applier: applier, waker: w, s: s}, nil
}

// releaseDelete deletes the objects of one release and then its Secret.
type releaseDelete struct {
	store   releaseStore
	rel     *release
	applier *engine.Applier
	waker   *waker
	s       *session.Session
}

func (d *releaseDelete) run(ctx context.Context, wait bool, timeout time.Duration) error {
	if wait {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	for settling := 0; ; {
		res, err := d.pass(ctx)
		switch {
		case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
			return d.timedOut(timeout, res)
		case err != nil:
			return err
		case len(res.Blocked) > 0:
			return fmt.Errorf("cannot delete release %s: %s", d.rel, res.BlockedMessage())
		case res.Done:
			if err := d.store.remove(ctx, d.rel); err != nil {
				return err
			}
			fmt.Fprintf(d.s.Stdout, "release %s deleted\n", d.rel)
			return nil
		case res.Changed && settling < maxSettlePasses:
			settling++
			continue
		case !wait:
			fmt.Fprintf(d.s.Stdout, "release %s is being deleted and waits for %s; run delete again or use --wait\n", d.rel, summarize(res.Waiting))
			return nil
		}
		settling = 0
		if err := d.waker.wait(ctx, res.Inventory); err != nil {
			return d.timedOut(timeout, res)
		}
	}
}

// pass runs one Delete pass, prints what went and records the inventory
// that is left.
func (d *releaseDelete) pass(ctx context.Context) (engine.Result, error) {
	ctx, span := passSpan(ctx)
	res, err := d.applier.Delete(ctx, d.rel.owner(), d.rel.Inventory, engine.DeleteOptions{Hooks: d.hooks(), Save: d.saveInventory})
	endPass(span, res.Done, err)
	for _, line := range removed(res) {
		fmt.Fprintln(d.s.Stdout, line)
	}
	if sameInventory(d.rel.Inventory, res.Inventory) || res.Done {
		return res, err
	}
	next := *d.rel
	next.Inventory, next.State, next.Updated = res.Inventory, StateDeleting, time.Now()
	next.Message = "waiting for " + summarize(res.Waiting)
	if saveErr := d.store.save(ctx, &next); saveErr != nil {
		return res, errors.Join(err, saveErr)
	}
	*d.rel = next
	return res, err
}

// hooks returns the delete hooks the last apply recorded.
func (d *releaseDelete) hooks() []client.Object {
	hooks := make([]client.Object, len(d.rel.DeleteHooks))
	for i, content := range d.rel.DeleteHooks {
		hooks[i] = (&unstructured.Unstructured{Object: content}).DeepCopy()
	}
	return hooks
}

// saveInventory records delete hooks in the inventory before they are created.
func (d *releaseDelete) saveInventory(ctx context.Context, items []manifests.InventoryItem) error {
	next := *d.rel
	next.Inventory, next.State, next.Message, next.Updated = items, StateDeleting, "running delete hooks", time.Now()
	if err := d.store.save(ctx, &next); err != nil {
		return err
	}
	*d.rel = next
	return nil
}

func (d *releaseDelete) timedOut(timeout time.Duration, res engine.Result) error {
	return fmt.Errorf("release %s: timed out after %s waiting for %s to be deleted", d.rel, timeout, summarize(res.Waiting))
}
