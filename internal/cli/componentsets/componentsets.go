package componentsets

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli/components"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// get --sets and tree --set: ComponentSets and their clusters' Components.

// AddSetViews gives the Component verbs get and tree their views of
// ComponentSets: get --sets lists the sets, tree --set shows a set's
// clusters. Both take the verb's own -o, and get its -A.
func AddSetViews(s *session.Session, get, tree *cobra.Command) {
	var sets, set bool
	get.Flags().BoolVar(&sets, "sets", false, "list ComponentSets instead: their rollout's wave and Ready clusters")
	tree.Flags().BoolVar(&set, "set", false, "show a ComponentSet's clusters instead: each one's wave, Component and state")
	getComponents, treeComponents := get.RunE, tree.RunE
	get.RunE = func(cmd *cobra.Command, args []string) error {
		if !sets {
			return getComponents(cmd, args)
		}
		format, all := cmd.Flag("output").Value.String(), cmd.Flag("all-namespaces").Value.String() == "true"
		if err := session.CheckOutputFormat(format); err != nil {
			return err
		}
		return runGetSets(cmd.Context(), s, args, all, format)
	}
	tree.RunE = func(cmd *cobra.Command, args []string) error {
		if !set {
			return treeComponents(cmd, args)
		}
		format := cmd.Flag("output").Value.String()
		if err := session.CheckOutputFormat(format); err != nil {
			return err
		}
		return runSetTree(cmd.Context(), s, args[0], format)
	}
}

// setSummary is a ComponentSet as get --sets prints it as YAML or JSON.
type setSummary struct {
	Namespace string                 `json:"namespace"`
	Name      string                 `json:"name"`
	Ready     string                 `json:"ready"`
	Reason    string                 `json:"reason,omitempty"`
	Rollout   v1alpha1.RolloutStatus `json:"rollout"`
	Created   time.Time              `json:"created"`
	Message   string                 `json:"message,omitempty"`
}

func runGetSets(ctx context.Context, s *session.Session, args []string, all bool, format string) error {
	cl, err := session.OperatorCluster(ctx, s)
	if err != nil {
		return err
	}
	var items []v1alpha1.ComponentSet
	if len(args) == 1 {
		set, err := readComponentSet(ctx, cl, args[0])
		if err != nil {
			return err
		}
		items = []v1alpha1.ComponentSet{*set}
	} else {
		namespace := cl.Namespace
		if all {
			namespace = ""
		}
		var list v1alpha1.ComponentSetList
		if err := cl.Client.List(ctx, &list, client.InNamespace(namespace)); err != nil {
			return components.ReadError("listing ComponentSets", err)
		}
		items = list.Items
	}
	sort.Slice(items, func(i, j int) bool {
		return items[i].Namespace+"/"+items[i].Name < items[j].Namespace+"/"+items[j].Name
	})
	summaries := make([]setSummary, len(items))
	for i := range items {
		summaries[i] = summarizeSet(&items[i])
	}
	if session.OutputFormat(format) != session.OutputTable {
		return session.WriteStructured(s.Stdout, format, summaries)
	}
	if len(summaries) == 0 {
		fmt.Fprintln(s.Stderr, "no ComponentSets found")
		return nil
	}
	w := session.NewTable(s.Stdout)
	header := "NAME\tREADY\tWAVE\tCLUSTERS\tAGE\tMESSAGE"
	if all {
		header = "NAMESPACE\t" + header
	}
	fmt.Fprintln(w, header)
	for _, s := range summaries {
		r := s.Rollout
		row := fmt.Sprintf("%s\t%s\t%d/%d\t%d/%d Ready\t%s\t%s", s.Name, s.Ready, r.Wave, r.Waves, r.Ready, r.Clusters,
			duration.HumanDuration(time.Since(s.Created)), tableMessage(s.Message))
		if all {
			row = s.Namespace + "\t" + row
		}
		fmt.Fprintln(w, row)
	}
	return w.Flush()
}

func summarizeSet(set *v1alpha1.ComponentSet) setSummary {
	s := setSummary{Namespace: set.Namespace, Name: set.Name, Ready: "Unknown", Rollout: set.Status.Rollout, Created: set.CreationTimestamp.Time}
	if ready := meta.FindStatusCondition(set.Status.Conditions, component.ConditionReady); ready != nil {
		s.Ready, s.Reason, s.Message = string(ready.Status), ready.Reason, ready.Message
	}
	return s
}

// readComponentSet reads the ComponentSet ref names.
func readComponentSet(ctx context.Context, cl *session.Cluster, ref string) (*v1alpha1.ComponentSet, error) {
	id := session.ObjectName(ref, cl.Namespace)
	set := &v1alpha1.ComponentSet{}
	err := cl.Client.Get(ctx, id, set)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("ComponentSet %s not found", id)
	}
	if err != nil {
		return nil, components.ReadError("reading ComponentSet "+id.String(), err)
	}
	return set, nil
}

// setCluster is one member's Component as tree --set prints it: a
// cluster's, or an input's (on a cluster, or on the operator's cluster:
// Cluster empty).
type setCluster struct {
	Wave      int    `json:"wave"`
	Cluster   string `json:"cluster"`
	Input     string `json:"input,omitempty"`
	Component string `json:"component"`
	Ready     string `json:"ready"`
	State     string `json:"state"`
	Message   string `json:"message,omitempty"`
}

// runSetTree shows a set's clusters, wave by wave, with their Components'
// state: what the set's status sums up, from the Components themselves.
func runSetTree(ctx context.Context, s *session.Session, ref, format string) error {
	cl, err := session.OperatorCluster(ctx, s)
	if err != nil {
		return err
	}
	set, err := readComponentSet(ctx, cl, ref)
	if err != nil {
		return err
	}
	var list v1alpha1.ComponentList
	if err := cl.Client.List(ctx, &list, client.InNamespace(set.Namespace)); err != nil {
		return components.ReadError("listing Components", err)
	}
	rows := setClusters(set, list.Items, s.OperatorName)
	if session.OutputFormat(format) != session.OutputTable {
		return session.WriteStructured(s.Stdout, format, rows)
	}
	summary := summarizeSet(set)
	fmt.Fprintf(s.Stdout, "ComponentSet %s/%s: %s, wave %d of %d (%s)\n", set.Namespace, set.Name, summary.Reason, summary.Rollout.Wave, summary.Rollout.Waves, tableMessage(summary.Message))
	w := session.NewTable(s.Stdout)
	if set.Spec.Inputs != nil {
		fmt.Fprintf(w, "Inputs: %s\n", inputsSummary(set))
		fmt.Fprintln(w, "WAVE\tINPUT\tCLUSTER\tCOMPONENT\tREADY\tSTATE\tMESSAGE")
		for _, r := range rows {
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Wave, r.Input, orDash(r.Cluster), r.Component, r.Ready, r.State, tableMessage(r.Message))
		}
		return w.Flush()
	}
	fmt.Fprintln(w, "WAVE\tCLUSTER\tCOMPONENT\tREADY\tSTATE\tMESSAGE")
	for _, r := range rows {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\n", r.Wave, r.Cluster, r.Component, r.Ready, r.State, tableMessage(r.Message))
	}
	return w.Flush()
}

// setClusters are the Components the set controls, by wave and cluster,
// and the pulled clusters, whose Components run on the cluster only: their
// state is the set's line for them (status.clusters).
func setClusters(set *v1alpha1.ComponentSet, members []v1alpha1.Component, operator string) []setCluster {
	var rows []setCluster
	placed := map[string]bool{}
	for i := range members {
		c := &members[i]
		if !metav1.IsControlledBy(c, set) {
			continue
		}
		wave, _ := strconv.Atoi(c.Annotations[operator+"/set-wave"])
		s := components.Summarize(c)
		rows = append(rows, setCluster{Wave: wave, Cluster: c.Annotations[operator+"/set-cluster"], Input: c.Annotations[fleet.InputAnnotation(operator)],
			Component: c.Name, Ready: s.Ready, State: s.State, Message: s.Message})
		member := c.Annotations[fleet.MemberAnnotation(operator)]
		if member == "" {
			member = rows[len(rows)-1].Cluster
		}
		placed[member] = true
	}
	for _, line := range v1alpha1.PlacedElsewhere(set.Status.Clusters, placed) {
		rows = append(rows, setCluster{Wave: line.Wave, Cluster: line.Cluster, Component: PulledComponent,
			Ready: lineReady(line), State: line.State, Message: line.Message})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Wave != rows[j].Wave {
			return rows[i].Wave < rows[j].Wave
		}
		if rows[i].Cluster != rows[j].Cluster {
			return rows[i].Cluster < rows[j].Cluster
		}
		return rows[i].Component < rows[j].Component
	})
	return rows
}

// inputsSummary says how many inputs the set read, or why it could not.
func inputsSummary(set *v1alpha1.ComponentSet) string {
	in := set.Status.Inputs
	switch {
	case in == nil:
		return "not read yet"
	case in.Error != "":
		return fmt.Sprintf("%d at the last good read; failing since %s: %s", in.Count, in.FailingSince, tableMessage(in.Error))
	}
	return fmt.Sprintf("%d", in.Count)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// PulledComponent stands, in tree --set, for the Component of a pulled
// cluster: it runs on the cluster, where its agent writes it.
const PulledComponent = "(on the cluster: pulled)"

// lineReady is the Ready status a set's line for a cluster says.
func lineReady(line v1alpha1.ClusterLine) string {
	switch {
	case line.Ready():
		return string(metav1.ConditionTrue)
	case line.Unreachable():
		return string(metav1.ConditionUnknown)
	}
	return string(metav1.ConditionFalse)
}

// tableMessage is message on one line, cut to what a table shows.
func tableMessage(message string) string {
	message = strings.Join(strings.Fields(message), " ")
	if len(message) > components.MaxMessage {
		message = message[:components.MaxMessage-3] + "..."
	}
	return message
}
