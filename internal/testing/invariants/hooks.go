package invariants

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/internal/testing/history"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Hooks checks an owner's Jobs (hooks, migrations): each is created at
// most once per render (its digest annotation, which an upgrade hook's
// render includes the component's generation in), and a Job of a later
// wave is created only after the last Job of each earlier wave created
// before it succeeded; when both run again on every change of the
// component, the earlier one ran again since the later one last did.
func Hooks(events []history.Event, f Facts) []Violation {
	jobs := map[string][]history.Event{} // cluster/owner -> creations
	for _, e := range events {
		if e.Kind == "Job" && e.Type == history.Added && f.ownerOf(e.Object) != "" {
			owner := e.Cluster + "/" + f.ownerOf(e.Object)
			jobs[owner] = append(jobs[owner], e)
		}
	}
	objects := index(events)
	var out []Violation
	for _, created := range jobs {
		sort.Slice(created, func(i, j int) bool { return created[i].RV < created[j].RV })
		out = append(out, f.oncePerRender(created)...)
		for i, b := range created {
			out = append(out, f.inOrder(objects, created[:i], b)...)
		}
	}
	return out
}

// oncePerRender reports a Job created twice from one render.
func (f Facts) oncePerRender(created []history.Event) []Violation {
	seen := map[string]bool{}
	var out []Violation
	for _, e := range created {
		digest := e.Object.GetAnnotations()[manifests.Key(f.Operator, manifests.AnnotationDigest)]
		if digest == "" {
			continue
		}
		if id := e.Object.GetName() + "@" + digest; seen[id] {
			out = append(out, Violation{Invariant: "hooks", Object: e.Key(), At: e.At,
				Message: fmt.Sprintf("created again (version %d) from the render it ran at already (digest %s)", e.RV, digest)})
		} else {
			seen[id] = true
		}
	}
	return out
}

// inOrder checks the creation b against the Jobs of earlier waves created
// before it.
func (f Facts) inOrder(objects map[string]timeline, before []history.Event, b history.Event) []Violation {
	latest := map[string]history.Event{} // the last creation of each earlier Job
	for _, a := range before {
		if f.wave(a.Object) < f.wave(b.Object) {
			latest[a.Object.GetName()] = a
		}
	}
	var out []Violation
	for name, a := range latest {
		if !succeededBefore(objects[a.Key()], a.Object.GetUID(), b.RV) {
			out = append(out, Violation{Invariant: "hooks", Object: b.Key(), At: b.At, Message: fmt.Sprintf(
				"created (wave %d, version %d) before Job %s of wave %d (created at version %d) succeeded",
				f.wave(b.Object), b.RV, name, f.wave(a.Object), a.RV)})
		}
		if f.everyChange(a) && f.everyChange(b) && ranBefore(before, b, a) {
			out = append(out, Violation{Invariant: "hooks", Object: b.Key(), At: b.At, Message: fmt.Sprintf(
				"created again (version %d) without Job %s of wave %d running again since it last ran", b.RV, name, f.wave(a.Object))})
		}
	}
	return out
}

// everyChange tells whether the Job runs again on every change of its
// component (reconcile-policy on-object-or-component-change: Helm's
// upgrade hooks).
func (f Facts) everyChange(e history.Event) bool {
	return e.Object.GetAnnotations()[manifests.Key(f.Operator, manifests.AnnotationReconcilePolicy)] == string(manifests.ReconcileOnObjectOrComponentChange)
}

// ranBefore tells whether b's previous creation came after a's last one.
func ranBefore(before []history.Event, b, a history.Event) bool {
	for i := len(before) - 1; i >= 0; i-- {
		if before[i].Object.GetName() == b.Object.GetName() {
			return before[i].RV > a.RV
		}
	}
	return false
}

// succeededBefore tells whether the Job of uid in t was seen Complete at a
// version before rv.
func succeededBefore(t timeline, uid types.UID, rv uint64) bool {
	for _, e := range t {
		if e.RV < rv && e.Object.GetUID() == uid && e.Type != history.Vanished && jobComplete(e) {
			return true
		}
	}
	return false
}

func jobComplete(e history.Event) bool {
	status, _ := e.Object.Object["status"].(map[string]any)
	conditions, _ := status["conditions"].([]any)
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		if (str(m, "type") == "Complete" || str(m, "type") == "SuccessCriteriaMet") && str(m, "status") == "True" {
			return true
		}
	}
	return false
}
