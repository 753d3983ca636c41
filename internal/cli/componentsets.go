package cli

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// get --sets and tree --set: ComponentSets and their clusters' Components.

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

func runGetSets(ctx context.Context, g *globalOptions, args []string, all bool, format string) error {
	cl, err := componentCluster(ctx, g)
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
		namespace := cl.namespace
		if all {
			namespace = ""
		}
		var list v1alpha1.ComponentSetList
		if err := cl.client.List(ctx, &list, client.InNamespace(namespace)); err != nil {
			return componentReadError("listing ComponentSets", err)
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
	if outputFormat(format) != outputTable {
		return writeStructured(g.stdout, format, summaries)
	}
	if len(summaries) == 0 {
		fmt.Fprintln(g.stderr, "no ComponentSets found")
		return nil
	}
	w := newTable(g.stdout)
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
func readComponentSet(ctx context.Context, cl *cluster, ref string) (*v1alpha1.ComponentSet, error) {
	id := diffComponentName(ref, cl.namespace)
	set := &v1alpha1.ComponentSet{}
	err := cl.client.Get(ctx, id, set)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("ComponentSet %s not found", id)
	}
	if err != nil {
		return nil, componentReadError("reading ComponentSet "+id.String(), err)
	}
	return set, nil
}

// setCluster is one cluster's Component as tree --set prints it.
type setCluster struct {
	Wave      int    `json:"wave"`
	Cluster   string `json:"cluster"`
	Component string `json:"component"`
	Ready     string `json:"ready"`
	State     string `json:"state"`
	Message   string `json:"message,omitempty"`
}

// runSetTree shows a set's clusters, wave by wave, with their Components'
// state: what the set's status sums up, from the Components themselves.
func runSetTree(ctx context.Context, g *globalOptions, ref, format string) error {
	cl, err := componentCluster(ctx, g)
	if err != nil {
		return err
	}
	set, err := readComponentSet(ctx, cl, ref)
	if err != nil {
		return err
	}
	var list v1alpha1.ComponentList
	if err := cl.client.List(ctx, &list, client.InNamespace(set.Namespace)); err != nil {
		return componentReadError("listing Components", err)
	}
	rows := setClusters(set, list.Items, g.operatorName)
	if outputFormat(format) != outputTable {
		return writeStructured(g.stdout, format, rows)
	}
	s := summarizeSet(set)
	fmt.Fprintf(g.stdout, "ComponentSet %s/%s: %s, wave %d of %d (%s)\n", set.Namespace, set.Name, s.Reason, s.Rollout.Wave, s.Rollout.Waves, tableMessage(s.Message))
	w := newTable(g.stdout)
	fmt.Fprintln(w, "WAVE\tCLUSTER\tCOMPONENT\tREADY\tSTATE\tMESSAGE")
	for _, r := range rows {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\n", r.Wave, r.Cluster, r.Component, r.Ready, r.State, tableMessage(r.Message))
	}
	return w.Flush()
}

// setClusters are the Components the set controls, by wave and cluster.
func setClusters(set *v1alpha1.ComponentSet, components []v1alpha1.Component, operator string) []setCluster {
	var rows []setCluster
	for i := range components {
		c := &components[i]
		if !metav1.IsControlledBy(c, set) {
			continue
		}
		wave, _ := strconv.Atoi(c.Annotations[operator+"/set-wave"])
		s := summarizeComponent(c)
		rows = append(rows, setCluster{Wave: wave, Cluster: c.Annotations[operator+"/set-cluster"], Component: c.Name,
			Ready: s.Ready, State: s.State, Message: s.Message})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Wave != rows[j].Wave {
			return rows[i].Wave < rows[j].Wave
		}
		return rows[i].Cluster < rows[j].Cluster
	})
	return rows
}

// tableMessage is message on one line, cut to what a table shows.
func tableMessage(message string) string {
	message = strings.Join(strings.Fields(message), " ")
	if len(message) > maxMessage {
		message = message[:maxMessage-3] + "..."
	}
	return message
}
