package componentsets

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli/components"
	"github.com/wavekit-dev/wavekit/internal/cli/diffview"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/internal/operator"
)

// diff componentset: diff component for each cluster of a ComponentSet.

// setDiffOptions are diff component's options, for the Component of each
// cluster of a set.
type setDiffOptions struct{ components.DiffOptions }

// NewDiffCommand is diff componentset: diff component for the Component of
// each cluster of a ComponentSet.
func NewDiffCommand(s *session.Session) *cobra.Command {
	o := &setDiffOptions{}
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "componentset [NAMESPACE/NAME] [-f FILE]",
		Short: "Show, cluster by cluster, what a ComponentSet's change would do",
		Long: `diff componentset previews a ComponentSet of the reference operator on each of
its clusters: it selects the clusters as the operator does (cluster Secrets and
Cluster API Clusters of the set's namespace, by spec.placement), makes the
Component the set would write for each (the template, with the cluster's name,
labels and annotations in its values), and previews that Component as diff
component does, every write a server-side dry run. Nothing is written. The
preview is of the whole rollout: a cluster of a later wave is shown with the
new template although the operator writes it there only once the earlier
waves are Ready.

The output has a header per cluster, in wave order, then diff component's
output for it; a cluster that would join the selection says so, one that would
leave it says whether its Component is deleted or released; a cluster that
cannot be previewed (its API server does not answer) has an error line, and
the others are previewed all the same. -o json|yaml: one report per cluster.

NAMESPACE/NAME previews the set in the cluster (after a change of the
clusters' labels, or a new chart version); -f FILE previews a set from a file,
a new one or a changed copy of one in the cluster.

Exit code: 0 when nothing would change, 1 when something would on some
cluster, 2 when a cluster could not be previewed or on error.`,
		Example: `  wavekit diff componentset fleet/web
  wavekit diff componentset -f web-set.yaml --source site=./charts/site`,
		Args:        cobra.MaximumNArgs(1),
		Annotations: map[string]string{session.ErrorExitCode: "2"},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.NameSet = cmd.Flags().Changed("operator-name")
			return o.runSet(cmd.Context(), s, args, timeout)
		},
	}
	o.AddFlags(cmd, "a ComponentSet manifest to preview instead of the one in the cluster")
	cmd.Flags().DurationVar(&timeout, "target-timeout", 30*time.Second, "how long to wait for a cluster's API server before reporting it as an error")
	return cmd
}

// clusterReport is one cluster's preview as -o json|yaml prints it.
type clusterReport struct {
	Cluster   string `json:"cluster"`
	Wave      int    `json:"wave,omitempty"`
	Component string `json:"component"`
	// Selection is "joins", "stays" or "leaves".
	Selection string `json:"selection"`
	// Removal is what happens to the Component of a cluster that leaves:
	// "delete" or "orphan".
	Removal string               `json:"removal,omitempty"`
	Error   string               `json:"error,omitempty"`
	Plan    *diffview.PlanReport `json:"plan,omitempty"`
	changes bool
	steps   []diffview.PlannedStep // the plan's, for the text output
}

func (o *setDiffOptions) runSet(ctx context.Context, s *session.Session, args []string, timeout time.Duration) error {
	if err := o.Check(args, "componentset"); err != nil {
		return err
	}
	cl, opts, err := o.Prepare(ctx, s)
	if err != nil {
		return err
	}
	opts.Reconciler.TargetTimeout = timeout
	set, err := o.componentSet(ctx, cl, args)
	if err != nil {
		return err
	}
	previews, err := fleet.Preview(ctx, cl.Client, opts.Name, set)
	if err != nil {
		return fmt.Errorf("previewing ComponentSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	reports := make([]clusterReport, len(previews))
	for i, p := range previews {
		reports[i] = o.previewCluster(ctx, cl, opts, set, p)
		if o.Output == "text" {
			printClusterReport(s.Stdout, reports[i], memberNoun(set))
		}
	}
	if o.Output != "text" {
		if err := session.WriteStructured(s.Stdout, o.Output, reports); err != nil {
			return err
		}
	} else {
		printSetSummary(s.Stdout, reports, memberNoun(set))
	}
	return setExit(reports, memberNoun(set))
}

// componentSet returns the set to preview: the one in the cluster, or the
// file's with the UID of the one in the cluster by its name (so its
// Components are found).
func (o *setDiffOptions) componentSet(ctx context.Context, cl *session.Cluster, args []string) (*v1alpha1.ComponentSet, error) {
	if o.File == "" {
		return readComponentSet(ctx, cl, args[0])
	}
	set, err := readComponentSetFile(o.File, cl.Namespace)
	if err != nil {
		return nil, err
	}
	live := &v1alpha1.ComponentSet{}
	err = cl.Client.Get(ctx, types.NamespacedName{Namespace: set.Namespace, Name: set.Name}, live)
	switch {
	case err == nil:
		set.UID = live.UID
	case !apierrors.IsNotFound(err):
		return nil, components.ReadError("reading ComponentSet "+set.Namespace+"/"+set.Name, err)
	}
	return set, nil
}

// readComponentSetFile reads one ComponentSet manifest; fields it does not
// know are an error.
func readComponentSetFile(path, namespace string) (*v1alpha1.ComponentSet, error) {
	set := &v1alpha1.ComponentSet{}
	return set, components.ReadManifest(path, "ComponentSet", namespace, set)
}

// previewCluster previews the Component of one cluster; an error is the
// cluster's, in its report.
func (o *setDiffOptions) previewCluster(ctx context.Context, cl *session.Cluster, opts operator.Options, set *v1alpha1.ComponentSet, p fleet.ClusterPreview) clusterReport {
	r := clusterReport{Cluster: p.Cluster, Wave: p.Wave, Selection: "stays"}
	if p.Leaves() {
		r.Component, r.Selection, r.Removal, r.changes = p.Current.Namespace+"/"+p.Current.Name, "leaves", "delete", true
		if set.Spec.RemovalPolicy == v1alpha1.RemovalOrphan {
			r.Removal = "orphan"
		}
		return r
	}
	c := p.Component
	r.Component = c.Namespace + "/" + c.Name
	if p.Current == nil {
		r.Selection = "joins"
	}
	if p.Pulled {
		r.Error = "a pulled cluster: its agent renders the Component in the cluster, which is not reached from here"
		return r
	}
	components.NextGeneration(c, p.Current)
	preview, err := o.Preview(ctx, cl, opts, c)
	if err == nil {
		var steps []diffview.PlannedStep
		if steps, err = diffview.PlanSteps(preview, o.ShowSecrets); err == nil {
			report := diffview.NewPlanReport(r.Component, steps)
			r.Plan, r.changes, r.steps = &report, report.Changes, steps
		}
	}
	if err != nil {
		r.Error = err.Error()
	}
	return r
}

// printClusterReport prints a cluster's header and diff component's output
// for it, or what happens to its Component when it leaves, or its error.
func printClusterReport(out io.Writer, r clusterReport, noun string) {
	switch {
	case r.Selection == "leaves" && r.Removal == "orphan":
		fmt.Fprintf(out, "%s %s leaves the selection: Component %s is released from the set, and its objects stay\n\n", noun, r.Cluster, r.Component)
		return
	case r.Selection == "leaves":
		fmt.Fprintf(out, "%s %s leaves the selection: Component %s is deleted, and its objects with it\n\n", noun, r.Cluster, r.Component)
		return
	}
	joins := ""
	if r.Selection == "joins" {
		joins = ", joins the selection"
	}
	fmt.Fprintf(out, "%s %s (wave %d%s): Component %s\n", noun, r.Cluster, r.Wave, joins, r.Component)
	if r.Error != "" {
		fmt.Fprintf(out, "error: %s\n\n", r.Error)
		return
	}
	diffview.PrintPlan(out, r.steps)
	fmt.Fprintln(out)
}

// printSetSummary counts the clusters by what would happen to them.
func printSetSummary(out io.Writer, reports []clusterReport, noun string) {
	var change, unchanged, leave, failed int
	for _, r := range reports {
		switch {
		case r.Error != "":
			failed++
		case r.Selection == "leaves":
			leave++
		case r.changes:
			change++
		default:
			unchanged++
		}
	}
	fmt.Fprintf(out, "%ss: %d to change, %d unchanged, %d to leave, %d not previewed\n", strings.ToUpper(noun[:1])+noun[1:], change, unchanged, leave, failed)
}

// memberNoun is what the set's members are called: clusters, or members
// (one per input, or per cluster and input) for a set with spec.inputs.
func memberNoun(set *v1alpha1.ComponentSet) string {
	if set.Spec.Inputs != nil {
		return "member"
	}
	return "cluster"
}

// setExit is the command's end: an error naming the clusters that could
// not be previewed (exit code 2), else exit code 1 when something would
// change, else nil.
func setExit(reports []clusterReport, noun string) error {
	var failed []string
	changes := false
	for _, r := range reports {
		if r.Error != "" {
			failed = append(failed, r.Cluster)
		}
		changes = changes || r.changes
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d %ss could not be previewed: %s", len(failed), len(reports), noun, strings.Join(failed, ", "))
	}
	if changes {
		return &session.ExitError{Code: 1}
	}
	return nil
}
