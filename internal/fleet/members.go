package fleet

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
)

// defaultInputsInterval is spec.inputs.interval when it is not set.
const defaultInputsInterval = 5 * time.Minute

// inputsInterval is how often the set's inputs are read again; 0 for a
// set whose inputs are all in the set (a list), read at each change.
func inputsInterval(set *v1alpha1.ComponentSet) time.Duration {
	in := set.Spec.Inputs
	if in == nil || !readsOutside(in) {
		return 0
	}
	if in.Interval != nil && in.Interval.Duration > 0 {
		return in.Interval.Duration
	}
	return defaultInputsInterval
}

// readsOutside tells whether some of the inputs come from outside the set.
func readsOutside(in *v1alpha1.Inputs) bool {
	sources := append([]v1alpha1.InputSource{in.InputSource}, in.Matrix...)
	for _, s := range sources {
		if s.GitDirectories != nil || s.GitFiles != nil || s.PullRequests != nil {
			return true
		}
	}
	return false
}

// readInputs reads the set's inputs, again only past their interval
// unless a reconcile request asks; a set without spec.inputs has none (nil,
// nil).
func (r *Reconciler) readInputs(ctx context.Context, set *v1alpha1.ComponentSet) ([]inputs.Input, error) {
	if set.Spec.Inputs == nil {
		return nil, nil
	}
	reader := r.inputs
	if reader == nil {
		reader = &inputs.Reader{}
	}
	opts := inputs.ReadOptions{Consumer: set.Namespace + "/" + set.Name, Interval: inputsInterval(set)}
	opts.Since = r.requestedAt(set)
	list, err := reader.Read(ctx, set.Namespace, set.Spec.Inputs, opts)
	if err != nil {
		return nil, &inputsError{err: err}
	}
	return list, nil
}

// requestedAt is the time of the set's reconcile request that it has not
// handled yet (a Receiver's event, wavekit reconcile), or zero: the inputs
// are read again if the last read was before it. A request whose value is
// not a time asks for a read now.
func (r *Reconciler) requestedAt(set *v1alpha1.ComponentSet) time.Time {
	requested := set.Annotations[r.keys.request]
	if requested == "" || requested == set.Status.LastHandledReconcileAt {
		return time.Time{}
	}
	if at, err := time.Parse(time.RFC3339Nano, requested); err == nil {
		return at
	}
	return time.Now()
}

// inputsError says the set's inputs could not be read: the set keeps the
// members it had.
type inputsError struct{ err error }

func (e *inputsError) Error() string { return e.err.Error() }
func (e *inputsError) Unwrap() error { return e.err }

// expand makes the members of a set with spec.inputs: one per input on the
// operator's cluster without spec.placement, one per cluster and input
// with it, each named by spec.inputs.name. A name that is not a DNS label,
// two members of one name, a pulled cluster or more members than
// spec.inputs.maxMembers make the set invalid: nothing is written.
func expand(set *v1alpha1.ComponentSet, clusters []cluster, list []inputs.Input) ([]cluster, error) {
	spec := set.Spec.Inputs
	if spec == nil {
		return clusters, nil
	}
	hosts := clusters
	if set.Spec.Placement == nil {
		hosts = []cluster{{Local: true}}
	}
	if n := len(hosts) * len(list); n > spec.GetMaxMembers() {
		on := ""
		if set.Spec.Placement != nil {
			on = fmt.Sprintf(" on %d clusters", len(hosts))
		}
		return nil, fmt.Errorf("%d inputs%s make %d members, more than spec.inputs.maxMembers (%d): nothing was created, changed or removed",
			len(list), on, n, spec.GetMaxMembers())
	}
	template := spec.Name
	if template == "" {
		template = inputs.DefaultName(set.Name, set.Spec.Placement != nil)
	}
	out := make([]cluster, 0, len(hosts)*len(list))
	names := map[string]string{}
	for _, host := range hosts {
		if host.Pull {
			return nil, fmt.Errorf("cluster %s runs an agent that pulls its Components: a set with spec.inputs reaches only clusters with a kubeconfig", host.Name)
		}
		for _, in := range list {
			m, err := memberOf(template, host, in)
			if err != nil {
				return nil, err
			}
			if other, taken := names[m.Name]; taken {
				return nil, fmt.Errorf("spec.inputs.name %q gives %s for both %s and %s: add a field that tells them apart", template, m.Name, other, m.describe())
			}
			names[m.Name] = m.describe()
			out = append(out, m)
		}
	}
	return out, nil
}

// memberOf is the member of input in on host.
func memberOf(template string, host cluster, in inputs.Input) (cluster, error) {
	input := in
	m := host
	m.Input = &input
	if !host.Local {
		m.ClusterName = host.Name
	}
	name, err := inputs.Name(template, m.values())
	if err != nil {
		return cluster{}, err
	}
	m.Name = name
	return m, nil
}

// values are what m's template placeholders are replaced with.
func (c cluster) values() inputs.Values {
	v := inputs.Values{Cluster: c.ClusterName}
	if c.Input != nil {
		v.Input = *c.Input
	}
	return v
}

// describe names the member in messages: its input, on its cluster.
func (c cluster) describe() string {
	switch {
	case c.Input == nil:
		return "cluster " + c.Name
	case c.ClusterName == "":
		return "input " + c.Input.ID
	}
	return "input " + c.Input.ID + " on cluster " + c.ClusterName
}

// inputsFailed reports that the set's inputs could not be read: nothing is
// written or removed, the members and the rollout summary stay as they
// were, and the inputs are read again at their interval (a failing API is
// not asked sooner). It returns when to look again.
func (r *Reconciler) inputsFailed(set *v1alpha1.ComponentSet, err *inputsError, reasonBefore string) time.Duration {
	status := set.Status.Inputs
	if status == nil {
		status = &v1alpha1.InputsStatus{}
		set.Status.Inputs = status
	}
	if status.FailingSince == nil {
		now := metav1.Now()
		status.FailingSince = &now
	}
	status.Error = bound(err.Error(), maxInputsError)
	message := fmt.Sprintf("reading the inputs: %v; the set keeps its %d members: nothing was created, changed or removed", err, set.Status.Rollout.Clusters)
	setConditions(&set.Status, set.Generation, ReasonInputsFailed, false, message)
	if reasonBefore != ReasonInputsFailed {
		r.recorder.Eventf(set, nil, "Warning", ReasonInputsFailed, "ReadInputs", "%s", bound(message, maxEventNote))
	}
	interval := inputsInterval(set)
	if interval == 0 {
		interval = time.Minute
	}
	return interval
}

// maxInputsError bounds status.inputs.error.
const maxInputsError = 1024

// inputsRead records a good read of the set's inputs.
func (r *Reconciler) inputsRead(set *v1alpha1.ComponentSet, p *plan) {
	if set.Spec.Inputs == nil {
		set.Status.Inputs = nil
		return
	}
	set.Status.Inputs = &v1alpha1.InputsStatus{Count: int32(p.Inputs)}
}

// componentName is the name of m's Component: <set>-<cluster>, or for a
// set with spec.inputs the member's name.
func (m *member) componentName(set *v1alpha1.ComponentSet) string {
	if m.Cluster.Input != nil {
		return m.Cluster.Name
	}
	return componentName(set.Name, m.Cluster.Name)
}

// memberAnnotations name, on a member's Component, its cluster, and for a
// set with spec.inputs its member and input.
func (r *Reconciler) memberAnnotations(annotations map[string]string, c cluster) {
	if c.Input == nil {
		annotations[r.keys.clusterName] = c.Name
		return
	}
	annotations[r.keys.member] = c.Name
	annotations[r.keys.input] = c.Input.ID
	if c.Local {
		delete(annotations, r.keys.clusterName)
	} else {
		annotations[r.keys.clusterName] = c.ClusterName
	}
}
