package robustness_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/invariants"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The recovery probes: one Component of the probe source in each shard,
// which no operation touches. When a fault ends, the soak changes each
// one's values and edits one of its ConfigMaps by hand, and measures how
// long the operator takes to act on both (issue 76: a change made right
// after kube-apiserver returned waited a minute). A fault kind whose
// recovery passes its bound is a violation.
var probes = []struct{ name, shard string }{{"probe-a", "a"}, {"probe-b", "b"}}

// sourceProbe is the source of the probes.
const sourceProbe = "probe"

// recoveryBounds bound, by fault kind, the time from a fault's end until a
// change made then is acted on. A shard whose leader was killed waits for
// its standby to take the Lease over (controller-runtime's 15 s), or for
// the killed replica to come back. Every other fault leaves the replicas
// running and must not delay the operator past the fault: delayed
// connections too, since a leader renews its Lease on a connection of its
// own (before, a renewal waited behind the watches' traffic, the leader
// stepped down and its shard waited 30 s).
var recoveryBounds = map[string]time.Duration{
	faultKill:     45 * time.Second,
	faultHandover: 45 * time.Second,
}

// recoveryBound is the bound of fault kinds recoveryBounds does not name.
const recoveryBound = 5 * time.Second

func boundOf(kind string) time.Duration {
	if d, ok := recoveryBounds[kind]; ok {
		return d
	}
	return recoveryBound
}

// createProbes creates the probes and waits until each is Ready.
func (r *run) createProbes() {
	for _, p := range probes {
		c := &v1alpha1.Component{ObjectMeta: objectMeta(r.ns, p.name)}
		c.Labels = map[string]string{manifests.Key(r.operator, component.LabelShard): p.shard}
		c.Spec.Source = sourceProbe
		c.Spec.Values = jsonValues(map[string]any{"greeting": "hello"})
		retry(func() error { return client.IgnoreAlreadyExists(hub.Client.Create(ctx, c)) })
	}
}

// probeRecovery makes a change and a hand edit of every probe now that the
// fault of kind (the n-th) ended, waits until the operator acted on all of
// them, and records how long that took; past the kind's bound it is a
// violation. It gives up at three times the bound, or two minutes.
func (r *run) probeRecovery(ctx context.Context, kind string, n int) {
	start := time.Now()
	greeting := fmt.Sprintf("after %s %d", kind, n)
	edited := fmt.Sprintf("edit-%d", n%3)
	for _, p := range probes {
		if err := r.probeChange(ctx, p.name, greeting, edited); err != nil {
			r.note("the recovery probe after fault %s could not change %s: %v", kind, p.name, err)
			return
		}
	}
	bound := boundOf(kind)
	deadline := start.Add(max(3*bound, 2*time.Minute))
	for ctx.Err() == nil && time.Now().Before(deadline) {
		if r.probesActedOn(ctx, greeting, edited) {
			took := time.Since(start)
			r.stats.recovered(kind, took)
			r.note("fault %s: a change made at its end acted on after %s", kind, took.Round(time.Millisecond))
			if took > bound {
				r.violate(invariants.Violation{Invariant: "recovery", Object: "fault " + kind, Message: fmt.Sprintf(
					"a change made when the fault ended was acted on after %s, more than the bound %s", took.Round(time.Millisecond), bound)})
			}
			return
		}
		wait(ctx, 50*time.Millisecond)
	}
	r.violate(invariants.Violation{Invariant: "recovery", Object: "fault " + kind, Message: fmt.Sprintf(
		"a change made when the fault ended was not acted on after %s (bound %s)", time.Since(start).Round(time.Second), bound)})
}

// probeChange sets the greeting of probe name and edits its ConfigMap
// edited by hand, as kubectl would.
func (r *run) probeChange(ctx context.Context, name, greeting, edited string) error {
	var c v1alpha1.Component
	for {
		err := hub.Client.Get(ctx, client.ObjectKey{Namespace: r.ns, Name: name}, &c)
		if err == nil {
			c.Spec.Values = jsonValues(map[string]any{"greeting": greeting})
			err = hub.Client.Update(ctx, &c)
		}
		if err == nil {
			break
		}
		if !apierrors.IsConflict(err) || ctx.Err() != nil {
			return err
		}
	}
	var cm corev1.ConfigMap
	if err := hub.Client.Get(ctx, client.ObjectKey{Namespace: r.ns, Name: name + "-" + edited}, &cm); err != nil {
		return err
	}
	cm.Data = map[string]string{"greeting": "edited by hand"}
	if err := hub.Client.Update(ctx, &cm, client.FieldOwner("kubectl-edit")); err != nil {
		return err
	}
	r.ownWrite("hub", "ConfigMap", &cm)
	return nil
}

// probesActedOn tells whether every probe's ConfigMaps show greeting and
// the hand edit undone.
func (r *run) probesActedOn(ctx context.Context, greeting, edited string) bool {
	for _, p := range probes {
		var spec, edit corev1.ConfigMap
		if hub.Client.Get(ctx, client.ObjectKey{Namespace: r.ns, Name: p.name + "-spec"}, &spec) != nil ||
			hub.Client.Get(ctx, client.ObjectKey{Namespace: r.ns, Name: p.name + "-" + edited}, &edit) != nil {
			return false
		}
		if spec.Data["greeting"] != greeting || edit.Data["greeting"] != "hello" {
			return false
		}
	}
	return true
}
