package robustness_test

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/invariants"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// notConverged says what keeps the run from having converged: each
// Component of the model Ready at its generation (or Suspended, for a
// suspended one), every deleted one gone, the set Ready with one Ready
// Component per selected cluster, and each shard led by a replica that has
// looked at every Component since it took the lead; empty once it has.
func (r *run) notConverged() []string {
	var list v1alpha1.ComponentList
	if err := hub.Client.List(ctx, &list, client.InNamespace(r.ns)); err != nil {
		return []string{"listing Components: " + err.Error()}
	}
	var out []string
	seen := map[string]bool{}
	expectations := r.expectedComponents()
	for i := range list.Items {
		c := &list.Items[i]
		seen[c.Name] = true
		want, expected := expectations[c.Name]
		switch {
		case !expected:
			out = append(out, c.Name+": not deleted")
		case want == wantBlocked:
			if cond := c.Status.ReadyCondition(); c.DeletionTimestamp == nil || cond == nil || cond.Reason != component.ReasonDeletionBlocked {
				out = append(out, c.Name+": its deletion is not said to be blocked by a foreign instance: "+readyText(c))
			}
		case c.Status.ObservedGeneration != c.Generation:
			out = append(out, fmt.Sprintf("%s: at generation %d, observed %d", c.Name, c.Generation, c.Status.ObservedGeneration))
		case want == wantReady && !isReady(c):
			out = append(out, c.Name+": "+readyText(c))
		case want == wantRolledBack && !rolledBack(c):
			out = append(out, c.Name+": not rolled back: "+readyText(c))
		}
	}
	for name := range expectations {
		if !seen[name] {
			out = append(out, name+": missing")
		}
	}
	var set v1alpha1.ComponentSet
	if err := hub.Client.Get(ctx, client.ObjectKey{Namespace: r.ns, Name: "fleet"}, &set); err != nil {
		out = append(out, "ComponentSet fleet: "+err.Error())
	} else if cond := readyOf(set.Status.Conditions); set.Status.ObservedGeneration != set.Generation || cond != "True" {
		out = append(out, fmt.Sprintf("ComponentSet fleet: generation %d, observed %d, Ready %s", set.Generation, set.Status.ObservedGeneration, cond))
	}
	out = append(out, r.notCaughtUp()...)
	sort.Strings(out)
	return out
}

// What the checker wants of a Component once the run converged.
type want int

const (
	wantReady      want = iota
	wantSuspended       // anything, at its generation
	wantRolledBack      // its render failed: the last Ready render applied again
	wantBlocked         // deleted, and held back by a foreign instance of its CRD
)

// expectedComponents are the Components that must exist, each with what
// it must be.
func (r *run) expectedComponents() map[string]want {
	out := map[string]want{}
	for name, c := range r.model.comps {
		switch {
		case c.suspended:
			out[name] = wantSuspended
		case c.failing:
			out[name] = wantRolledBack
		default:
			out[name] = wantReady
		}
	}
	for name := range r.model.blocked {
		out[name] = wantBlocked
	}
	for cluster, in := range r.model.inSet {
		if in {
			out["fleet-"+cluster] = wantReady
		}
	}
	if !r.tornDown {
		for _, p := range probes {
			out[p.name] = wantReady
		}
	}
	return out
}

func isReady(c *v1alpha1.Component) bool {
	cond := c.Status.ReadyCondition()
	return cond != nil && cond.Status == "True"
}

// rolledBack tells whether c's render failed and the last Ready one was
// applied again; or, when it failed before any render was Ready, whether
// it says that there is nothing to roll back to.
func rolledBack(c *v1alpha1.Component) bool {
	cond := c.Status.ReadyCondition()
	return cond != nil && cond.Status == "False" && (cond.Reason == component.ReasonRolledBack ||
		cond.Reason == component.ReasonError && strings.Contains(cond.Message, "no earlier Ready render is kept"))
}

func readyText(c *v1alpha1.Component) string {
	if cond := c.Status.ReadyCondition(); cond != nil {
		return fmt.Sprintf("Ready %s/%s: %.300s", cond.Status, cond.Reason, cond.Message)
	}
	return "no Ready condition"
}

// stateViolations checks the converged state: every Component's inventory
// holds what its source renders for its values; every object with the
// owner label, on every cluster, is in the inventory of a Component that
// exists; every PostgreSQL role and database belongs to a shop Component
// that exists.
func (r *run) stateViolations() []invariants.Violation {
	var list v1alpha1.ComponentList
	if err := hub.Client.List(ctx, &list, client.InNamespace(r.ns)); err != nil {
		return []invariants.Violation{{Invariant: "convergence", Object: r.ns, Message: err.Error()}}
	}
	inventories := map[string]map[manifests.ObjectKey]bool{} // by owner ID
	var out []invariants.Violation
	for i := range list.Items {
		c := &list.Items[i]
		keys := map[manifests.ObjectKey]bool{}
		for _, item := range c.Status.Inventory {
			keys[item.Key()] = true
		}
		tracked := maps.Clone(keys)
		for _, item := range c.Status.Externals { // a dependent's own Secret is tracked there
			if item.SecretName != "" {
				tracked[manifests.ObjectKey{Kind: "Secret", Namespace: r.ns, Name: item.SecretName}] = true
			}
		}
		inventories[manifests.OwnerID(v1alpha1.GroupVersion.Group, "Component", r.ns, c.Name)] = tracked
		// A rolled-back Component holds the last render that was Ready,
		// which may be older than the model's last change before it failed.
		if m := r.model.comps[c.Name]; m != nil && !m.suspended && !m.failing {
			out = append(out, renderMismatch(c.Name, keys, m.rendered(r.ns))...)
		}
	}
	out = append(out, r.untracked(inventories)...)
	return append(out, r.pgLeaks()...)
}

// renderMismatch compares an inventory with what the source renders; the
// dependents outside the cluster are not objects and are left out.
func renderMismatch(name string, inventory map[manifests.ObjectKey]bool, rendered []manifests.ObjectKey) []invariants.Violation {
	want := map[manifests.ObjectKey]bool{}
	for _, key := range rendered {
		want[key] = true
	}
	var missing, extra []string
	for key := range want {
		if !inventory[key] {
			missing = append(missing, key.String())
		}
	}
	for key := range inventory {
		if !want[key] && key.Group != "external.wavekit.dev" {
			extra = append(extra, key.String())
		}
	}
	if len(missing)+len(extra) == 0 {
		return nil
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return []invariants.Violation{{Invariant: "convergence", Object: "Component " + name,
		Message: fmt.Sprintf("its inventory is not its render: missing %v, not rendered %v", missing, extra)}}
}

// ownedKinds are the kinds the soak's sources render.
var ownedKinds = []schema.GroupVersionKind{
	{Version: "v1", Kind: "ConfigMapList"}, {Version: "v1", Kind: "SecretList"},
	{Group: "apps", Version: "v1", Kind: "DeploymentList"}, {Group: "batch", Version: "v1", Kind: "JobList"},
}

// untracked reports every object with the owner label, on every cluster,
// that no existing Component's inventory lists.
func (r *run) untracked(inventories map[string]map[manifests.ObjectKey]bool) []invariants.Violation {
	label := manifests.Key(r.operator, manifests.LabelOwnerID)
	clusters := map[string]*testcluster.Env{"hub": hub}
	for i, m := range members {
		clusters[memberName(i)] = m
	}
	var out []invariants.Violation
	for name, cluster := range clusters {
		for _, gvk := range ownedKinds {
			if name != "hub" && (gvk.Group != "" || gvk.Kind == "DeploymentList") {
				continue
			}
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(gvk)
			if err := cluster.Client.List(ctx, list, client.InNamespace(r.ns), client.HasLabels{label}); err != nil {
				out = append(out, invariants.Violation{Invariant: "untracked", Object: name, Message: err.Error()})
				continue
			}
			for _, u := range list.Items {
				key := manifests.ObjectKey{Group: gvk.Group, Kind: strings.TrimSuffix(gvk.Kind, "List"), Namespace: u.GetNamespace(), Name: u.GetName()}
				if u.GetDeletionTimestamp() == nil && !inventories[u.GetLabels()[label]][key] {
					out = append(out, invariants.Violation{Invariant: "untracked", Object: name + "/" + key.String(),
						Message: "carries the owner label " + u.GetLabels()[label] + ", and no existing Component's inventory lists it"})
				}
			}
		}
	}
	return out
}

// leakedCRDs reports the CRDs of the crds Components left once every
// Component is gone.
func (r *run) leakedCRDs() []invariants.Violation {
	var list apiextensionsv1.CustomResourceDefinitionList
	if err := hub.Client.List(ctx, &list, client.HasLabels{manifests.Key(r.operator, manifests.LabelOwnerID)}); err != nil {
		return []invariants.Violation{{Invariant: "leaked", Object: "CustomResourceDefinitions", Message: err.Error()}}
	}
	var out []invariants.Violation
	for _, crd := range list.Items {
		if crd.Spec.Group == crdGroup && crd.DeletionTimestamp == nil {
			out = append(out, invariants.Violation{Invariant: "leaked", Object: "CustomResourceDefinition " + crd.Name, Message: "its Component is gone"})
		}
	}
	return out
}

// pgLeaks reports the roles and databases of the run's namespace that no
// shop Component of the model owns, and those a shop Component lacks.
func (r *run) pgLeaks() []invariants.Violation {
	found, err := pgObjects(ctx, database(r.ns, ""))
	if err != nil {
		return []invariants.Violation{{Invariant: "leaked", Object: "PostgreSQL", Message: err.Error()}}
	}
	want := map[string]bool{}
	for _, name := range r.model.names(sourceShop) {
		if !r.model.comps[name].suspended {
			want["role "+database(r.ns, name)], want["database "+database(r.ns, name)] = true, true
		}
	}
	var out []invariants.Violation
	for _, object := range found {
		if !want[object] {
			if c := r.model.comps[strings.TrimPrefix(strings.Fields(object)[1], database(r.ns, ""))]; c == nil {
				out = append(out, invariants.Violation{Invariant: "leaked", Object: "PostgreSQL " + object, Message: "its Component is gone"})
			}
		}
		delete(want, object)
	}
	for object := range want {
		out = append(out, invariants.Violation{Invariant: "convergence", Object: "PostgreSQL " + object, Message: "missing"})
	}
	return out
}

// readyOf is the status of the Ready condition among conditions ("" if none).
func readyOf(conditions []metav1.Condition) string {
	if c := meta.FindStatusCondition(conditions, component.ConditionReady); c != nil {
		return string(c.Status)
	}
	return ""
}

// waitConverged waits until the run has converged, at most config.converge,
// and returns how long it took, or what still keeps it from converging.
func (r *run) waitConverged() (time.Duration, []string) {
	start := time.Now()
	var problems []string
	timedOut := false
	g := NewGomega(func(string, ...int) { timedOut = true })
	g.Eventually(func() []string {
		problems = r.notConverged()
		return problems
	}).WithTimeout(config.converge).WithPolling(250 * time.Millisecond).Should(BeEmpty())
	if !timedOut {
		problems = nil
	}
	return time.Since(start), problems
}
