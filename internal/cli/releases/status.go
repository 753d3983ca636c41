package releases

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/internal/cli/livestatus"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// NewStatusCommand is status: a release and the live status of its objects.
func NewStatusCommand(s *session.Session) *cobra.Command {
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
		Args: session.ExactArgs("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := session.CheckOutputFormat(format); err != nil {
				return err
			}
			return runStatus(cmd.Context(), s, args[0], format)
		},
	}
	session.AddOutputFlag(cmd, &format)
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

func runStatus(ctx context.Context, s *session.Session, name, format string) error {
	cl, err := s.Connect(ctx)
	if err != nil {
		return err
	}
	rel, err := releaseStore{client: cl.Client}.get(ctx, cl.Namespace, name)
	if err != nil {
		return err
	}
	if rel == nil {
		return fmt.Errorf("release %s/%s not found: no secret %s%s", cl.Namespace, name, secretPrefix, name)
	}
	st := releaseStatus{release: rel}
	prefix := rel.OperatorName
	if prefix == "" { // a release recorded before it kept its operator name
		prefix = s.OperatorName
	}
	judge, err := engine.NewJudge(rel.HealthChecks)
	if err != nil {
		return err
	}
	for _, item := range rel.Inventory {
		live, err := livestatus.Of(ctx, cl.Client, judge, item, prefix)
		if err != nil {
			return err
		}
		st.Objects = append(st.Objects, objectStatus{InventoryItem: item, LiveStatus: live})
	}
	if session.OutputFormat(format) != session.OutputTable {
		return session.WriteStructured(s.Stdout, format, withoutInventory(st))
	}
	return printStatus(s, st)
}

// withoutInventory drops the inventory, which Objects repeat.
func withoutInventory(st releaseStatus) releaseStatus {
	rel := *st.release
	rel.Inventory = nil
	st.release = &rel
	return st
}

func printStatus(s *session.Session, st releaseStatus) error {
	out := s.Stdout
	fmt.Fprintf(out, "Release:   %s\n", st.release)
	fmt.Fprintf(out, "Source:    %s\n", st.Source)
	fmt.Fprintf(out, "Revision:  %d\n", st.Revision)
	fmt.Fprintf(out, "State:     %s\n", st.State)
	if st.Message != "" {
		fmt.Fprintf(out, "Message:   %s\n", st.Message)
	}
	fmt.Fprintf(out, "Updated:   %s\n\n", st.Updated.Local().Format(time.RFC3339))
	tw := session.NewTable(out)
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
