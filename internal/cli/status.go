package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

func newStatusCommand(g *globalOptions) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "status NAME",
		Short: "Show release NAME and the live status of its objects",
		Long: `status shows release NAME as its Secret records it (source, revision, state,
the last message) and every object of its inventory: wave, phase at the
last apply, and its live status (Current, InProgress, Failed, ..., or
NotFound), read from the cluster now and judged as apply judges it: kstatus,
a Job Current only once Complete, a CRD once Established, and the object's
status-hint. With --drift-mode Warn, it lists the objects the last apply
found changed by others and left, with the JSON pointers of the fields.`,
		Example: `  wavekit status demo
  wavekit status demo -n prod -o yaml`,
		Args: exactArgs("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutputFormat(format); err != nil {
				return err
			}
			return runStatus(cmd.Context(), g, args[0], format)
		},
	}
	addOutputFlag(cmd, &format)
	return cmd
}

// releaseStatus is what status prints as YAML or JSON.
type releaseStatus struct {
	*release `json:",inline"`
	Objects  []objectStatus `json:"objects"`
}

// objectStatus is an inventory item with the object's live status.
type objectStatus struct {
	manifests.InventoryItem `json:",inline"`
	LiveStatus              string `json:"liveStatus"`
}

func runStatus(ctx context.Context, g *globalOptions, name, format string) error {
	cl, err := g.connect(ctx)
	if err != nil {
		return err
	}
	rel, err := releaseStore{client: cl.client}.get(ctx, cl.namespace, name)
	if err != nil {
		return err
	}
	if rel == nil {
		return fmt.Errorf("release %s/%s not found: no secret %s%s", cl.namespace, name, secretPrefix, name)
	}
	st := releaseStatus{release: rel}
	prefix := rel.OperatorName
	if prefix == "" { // a release recorded before it kept its operator name
		prefix = g.operatorName
	}
	judge, err := engine.NewJudge(rel.HealthChecks)
	if err != nil {
		return err
	}
	for _, item := range rel.Inventory {
		live, err := liveStatus(ctx, cl.client, judge, item, prefix)
		if err != nil {
			return err
		}
		st.Objects = append(st.Objects, objectStatus{InventoryItem: item, LiveStatus: live})
	}
	if outputFormat(format) != outputTable {
		return writeStructured(g.stdout, format, withoutInventory(st))
	}
	return printStatus(g, st)
}

// withoutInventory drops the inventory, which Objects repeat.
func withoutInventory(st releaseStatus) releaseStatus {
	rel := *st.release
	rel.Inventory = nil
	st.release = &rel
	return st
}

// liveStatus computes the status of the object of item as it is now, as a
// pass of the engine would see it (the owner's health checks in judge, else
// kstatus with wavekit's rules for CRDs, APIServices, Jobs and the object's
// status-hint under prefix).
func liveStatus(ctx context.Context, c client.Client, judge engine.Judge, item manifests.InventoryItem, prefix string) (string, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(item.GroupVersionKind())
	err := c.Get(ctx, client.ObjectKey{Namespace: item.Namespace, Name: item.Name}, obj)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return "NotFound", nil
	case err != nil:
		return "", fmt.Errorf("reading %s: %w", item.String(), err)
	}
	st, _ := judge.Readiness(obj, statusHintOf(obj, prefix))
	return string(st), nil
}

// statusHintOf reads the status-hint annotation of a live object; an object
// whose annotations do not parse gets no hint.
func statusHintOf(obj *unstructured.Unstructured, prefix string) manifests.StatusHint {
	policies, err := manifests.ParsePolicies(prefix, obj.GetKind()+" "+obj.GetName(), obj.GetAnnotations(), manifests.Defaults{})
	if err != nil {
		return manifests.StatusHint{}
	}
	return policies.StatusHint
}

func printStatus(g *globalOptions, st releaseStatus) error {
	out := g.stdout
	fmt.Fprintf(out, "Release:   %s\n", st.release)
	fmt.Fprintf(out, "Source:    %s\n", st.Source)
	fmt.Fprintf(out, "Revision:  %d\n", st.Revision)
	fmt.Fprintf(out, "State:     %s\n", st.State)
	if st.Message != "" {
		fmt.Fprintf(out, "Message:   %s\n", st.Message)
	}
	fmt.Fprintf(out, "Updated:   %s\n\n", st.Updated.Local().Format(time.RFC3339))
	tw := newTable(out)
	fmt.Fprintln(tw, "WAVE\tOBJECT\tPHASE\tLIVE")
	for _, o := range st.Objects {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", o.ApplyOrder, o.InventoryItem.String(), o.Phase, o.LiveStatus)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printDrifted(out, st.Drifted)
	return nil
}
