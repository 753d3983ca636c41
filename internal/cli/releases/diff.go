package releases

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/cli/diffview"
	"github.com/wavekit-dev/wavekit/internal/cli/input"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/engine"
)

type diffOptions struct {
	input       input.Options
	verify      input.VerifyOptions
	showSecrets bool
	output      string
	trace       traceOptions
}

// NewDiffCommand is diff: what apply would change, as unified diffs; the
// root adds its verbs component and componentset.
func NewDiffCommand(s *session.Session) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff NAME SOURCE",
		Short: "Show what apply would change, as unified diffs",
		Long: `diff renders SOURCE for release NAME and sends every object to the API server
as a server-side dry run, the way apply would write it (its update policy:
replace, server-side apply or recreate). It prints a unified diff per object
between the live object and the dry-run result, the objects of the release's
inventory that are no longer rendered (apply would delete them), and a
summary. Server-managed fields (managedFields, resourceVersion, uid,
generation, creationTimestamp) are left out. The values of Secrets (data,
stringData and kubectl's last-applied copy) are masked: "***" for a value
that stays, "*** (before)" and "*** (after)" for one that changes; the keys
show what is added, changed or removed. --show-secrets prints the values.
A chart's dependencies are fetched as render fetches them (see wavekit render
--help).

Exit code: 0 when nothing would change, 1 when something would, 2 on error.`,
		Example: `  wavekit diff demo ./chart -f values.yaml
  wavekit diff demo ./chart --set replicas=5 || echo "changes pending"`,
		Args:        session.ExactArgs("NAME SOURCE"),
		Annotations: map[string]string{session.ErrorExitCode: "2"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.trace.run(cmd.Context(), "diff", args[0], func(ctx context.Context) error { return o.run(ctx, s, args[0], args[1]) })
		},
	}
	o.trace.addFlags(cmd)
	o.input.AddFlags(cmd)
	o.verify.AddFlags(cmd)
	o.input.VerifyDependencies(&o.verify)
	cmd.Flags().BoolVar(&o.showSecrets, "show-secrets", false, "print the values of Secrets instead of masks (they end up in logs)")
	cmd.Flags().StringVarP(&o.output, "output", "o", "text", "output format: text, yaml or json (the plan's steps; schema in docs/schemas/diff.schema.json)")
	return cmd
}

func (o *diffOptions) run(ctx context.Context, s *session.Session, name, dir string) error {
	if err := diffview.CheckPlanFormat(o.output); err != nil {
		return err
	}
	next, err := renderNextRevision(ctx, s, &o.input, name, input.LocalDir(dir))
	if err != nil {
		return err
	}
	preview, err := next.dryRun(ctx)
	if err != nil {
		return fmt.Errorf("release %s: %w", next.rel, err)
	}
	return diffview.WritePlan(s.Stdout, o.output, next.rel.String(), preview, o.showSecrets)
}

// nextRevision is what apply and diff start from: the cluster, the stored
// release and the objects of its next revision.
type nextRevision struct {
	cluster *session.Cluster
	store   releaseStore
	rel     *release
	objects []client.Object
}

// renderNextRevision loads the source in src with opts, connects, reads release name
// and renders the release's next revision.
func renderNextRevision(ctx context.Context, s *session.Session, opts *input.Options, name string, src input.Local) (*nextRevision, error) {
	if err := checkNames(s, name, ""); err != nil {
		return nil, err
	}
	in, err := opts.Load(src, s.OperatorName, s.Stderr)
	if err != nil {
		return nil, err
	}
	cl, err := s.Connect(ctx)
	if err != nil {
		return nil, err
	}
	store := releaseStore{client: cl.Client}
	rel, err := loadRelease(ctx, store, cl.Namespace, name, s.OperatorName)
	if err != nil {
		return nil, err
	}
	objects, err := in.Render(ctx, input.RenderContext{
		Namespace: rel.Namespace, Name: name, OperatorName: rel.OperatorName,
		Revision: rel.Revision + 1, FirstApply: !rel.Installed, Cluster: cl,
	})
	if err != nil {
		return nil, err
	}
	return &nextRevision{cluster: cl, store: store, rel: rel, objects: objects}, nil
}

// dryRun tells what applying the objects would do: the applier's Preview,
// every write a server-side dry run, so nothing is written.
func (n *nextRevision) dryRun(ctx context.Context) (engine.Preview, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	target, err := releaseTarget(ctx, n.cluster, n.rel, n.objects)
	if err != nil {
		return engine.Preview{}, err
	}
	applier, err := target.NewApplier()
	if err != nil {
		return engine.Preview{}, err
	}
	owner := n.rel.owner()
	owner.Generation = n.rel.Revision + 1
	return applier.Preview(ctx, owner, n.objects, n.rel.Inventory)
}

// loadRelease returns the stored release, or a new one when it has no
// Secret yet; a release applied under another operator name is an error.
func loadRelease(ctx context.Context, store releaseStore, namespace, name, operatorName string) (*release, error) {
	rel, err := store.get(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	if rel == nil {
		return &release{Name: name, Namespace: namespace, OperatorName: operatorName}, nil
	}
	if rel.OperatorName != operatorName {
		return nil, fmt.Errorf("release %s was applied with --operator-name %s, not %s", rel, rel.OperatorName, operatorName)
	}
	return rel, nil
}
