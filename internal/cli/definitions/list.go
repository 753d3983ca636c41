package definitions

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

func newListCommand(s *session.Session) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the ComponentDefinitions with their kinds, revisions and rollouts",
		Long: `list lists the ComponentDefinitions of the cluster: the kind each serves, its
newest revision and how many instances run each revision, where the rollout to
the newest revision is (the wave, and the instance it halted at), and whether
the definition is Ready, with its message.`,
		Example: `  wavekit definition list
  wavekit definition list -o yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := session.CheckOutputFormat(format); err != nil {
				return err
			}
			return runList(cmd.Context(), s, format)
		},
	}
	session.AddOutputFlag(cmd, &format)
	return cmd
}

// Summary is a definition as list prints it as YAML or JSON.
type Summary struct {
	Name      string                            `json:"name"`
	Kind      string                            `json:"kind"`
	Revision  int64                             `json:"revision"`
	Revisions []v1alpha1.RevisionSummary        `json:"revisions,omitempty"`
	Rollout   *v1alpha1.DefinitionRolloutStatus `json:"rollout,omitempty"`
	Instances int32                             `json:"instances"`
	Ready     string                            `json:"ready"`
	Reason    string                            `json:"reason,omitempty"`
	Message   string                            `json:"message,omitempty"`
	Created   time.Time                         `json:"created"`
}

func runList(ctx context.Context, s *session.Session, format string) error {
	cl, err := session.OperatorCluster(ctx, s)
	if err != nil {
		return err
	}
	var list v1alpha1.ComponentDefinitionList
	if err := cl.Client.List(ctx, &list); err != nil {
		if meta.IsNoMatchError(err) {
			return fmt.Errorf("the cluster does not serve ComponentDefinitions: install the operator's CRDs (config/crd/bases) of this release")
		}
		return fmt.Errorf("listing ComponentDefinitions: %w", err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	summaries := make([]Summary, len(list.Items))
	for i := range list.Items {
		summaries[i] = summarize(&list.Items[i])
	}
	if session.OutputFormat(format) != session.OutputTable {
		return session.WriteStructured(s.Stdout, format, summaries)
	}
	if len(summaries) == 0 {
		fmt.Fprintln(s.Stderr, "no ComponentDefinitions found")
		return nil
	}
	t := session.NewTable(s.Stdout)
	fmt.Fprintln(t, "NAME\tKIND\tREVISION\tINSTANCES BY REVISION\tROLLOUT\tREADY\tAGE\tMESSAGE")
	for _, d := range summaries {
		fmt.Fprintf(t, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", d.Name, d.Kind, d.Revision, byRevision(d), rolloutWords(d.Rollout),
			d.Ready, duration.HumanDuration(time.Since(d.Created)), firstLine(d.Message))
	}
	return t.Flush()
}

func summarize(def *v1alpha1.ComponentDefinition) Summary {
	st := def.Status
	out := Summary{Name: def.Name, Kind: def.Spec.Names.Kind, Revision: st.Revision, Revisions: st.Revisions, Rollout: st.Rollout,
		Instances: st.Instances, Ready: "Unknown", Created: def.CreationTimestamp.Time}
	if ready := meta.FindStatusCondition(st.Conditions, component.ConditionReady); ready != nil {
		out.Ready, out.Reason, out.Message = string(ready.Status), ready.Reason, ready.Message
	} else {
		out.Reason, out.Message = ReasonNotServed, NotServed(def)
	}
	return out
}

// ReasonNotServed is the reason list gives a definition that no operator
// has written a status of.
const ReasonNotServed = "NotServed"

// NotServed says why def is not served when no operator has written its
// status — none serves definitions in this cluster, or none has looked at
// it yet —, and is "" once one has.
func NotServed(def *v1alpha1.ComponentDefinition) string {
	if meta.FindStatusCondition(def.Status.Conditions, component.ConditionReady) != nil {
		return ""
	}
	return "not served: no operator with --definitions has looked at it (the chart's definitions.enabled; " +
		"wavekit cluster create --operator serves them unless --definitions=false)"
}

// byRevision says how many instances run each revision: "3:5 1:1".
func byRevision(d Summary) string {
	var parts []string
	for _, r := range d.Revisions {
		if r.Instances > 0 {
			parts = append(parts, fmt.Sprintf("%d:%d", r.Revision, r.Instances))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// rolloutWords says where a rollout is: "Progressing 1/3", "Halted 1/3 at ns/a".
func rolloutWords(r *v1alpha1.DefinitionRolloutStatus) string {
	if r == nil {
		return "-"
	}
	words := fmt.Sprintf("%s %d/%d", r.Phase, r.Wave, r.Waves)
	if r.Failed != nil {
		words += " at " + r.Failed.Instance
	}
	return words
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}
