package readiness

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// onDeleteStrategy is the update strategy of a StatefulSet or DaemonSet
// whose pods are replaced only when someone deletes them.
const onDeleteStrategy = "OnDelete"

// beyondShortcuts corrects kstatus where it takes a shortcut for a
// workload whose controller will not finish a rollout by itself: a
// StatefulSet or DaemonSet with updateStrategy OnDelete and a paused
// Deployment. The pods that exist must be ready; pods that wait for a person
// (a delete, a resume) do not hold the wave, and the message says so.
func beyondShortcuts(u *unstructured.Unstructured, r State) State {
	if u.GroupVersionKind().Group != "apps" || r.Failed() {
		return r
	}
	switch kind := u.GetKind(); {
	case kind == "StatefulSet" && strategy(u) == onDeleteStrategy:
		return statefulSetOnDelete(u)
	case kind == "DaemonSet" && strategy(u) == onDeleteStrategy && !r.Ready():
		return daemonSetOnDelete(u, r)
	case kind == "Deployment" && paused(u) && !r.Ready():
		return pausedDeployment(u, r)
	}
	return r
}

// statefulSetOnDelete is Current once the controller has seen the
// generation and made every replica, and every replica is ready unless some
// are of an older revision: after an upgrade those wait for a delete, and
// the message says how many. kstatus calls any such StatefulSet Current.
func statefulSetOnDelete(u *unstructured.Unstructured) State {
	if r, seen := generationSeen(u); !seen {
		return r
	}
	replicas := intAt(u, 1, "spec", "replicas")
	made := intAt(u, 0, "status", "replicas")
	updated := intAt(u, 0, "status", "updatedReplicas")
	ready := intAt(u, 0, "status", "readyReplicas")
	switch {
	case made < replicas:
		return inProgress("Replicas: %d/%d", made, replicas)
	case made > replicas:
		return inProgress("Pending termination: %d", made-replicas)
	case updated < replicas:
		return current("%d of %d pods wait for a delete to be updated (updateStrategy OnDelete); ready: %d/%d",
			replicas-updated, replicas, ready, replicas)
	case ready < replicas:
		return inProgress("Ready: %d/%d", ready, replicas)
	}
	return current("StatefulSet is ready. Replicas: %d", replicas)
}

// daemonSetOnDelete turns kstatus's endless "Updated: n/m" of a DaemonSet
// with OnDelete into Current once every scheduled pod is ready and
// available, saying how many pods wait for a delete; until then it says how
// many are available and ready.
func daemonSetOnDelete(u *unstructured.Unstructured, r State) State {
	if _, seen := generationSeen(u); !seen {
		return r
	}
	desired := intAt(u, -1, "status", "desiredNumberScheduled")
	scheduled := intAt(u, 0, "status", "currentNumberScheduled")
	updated := intAt(u, 0, "status", "updatedNumberScheduled")
	ready := intAt(u, 0, "status", "numberReady")
	available := intAt(u, 0, "status", "numberAvailable")
	switch {
	case desired < 0 || scheduled < desired || updated >= desired:
		return r
	case available < desired:
		return inProgress("Available: %d/%d", available, desired)
	case ready < desired:
		return inProgress("Ready: %d/%d", ready, desired)
	}
	return current("%d of %d pods wait for a delete to be updated (updateStrategy OnDelete)", desired-updated, desired)
}

// pausedDeployment is Current once the controller has seen the generation
// and the pods it has are ready: a paused Deployment neither rolls out nor
// makes its first ReplicaSet until spec.paused is false, which no wave can
// wait for.
func pausedDeployment(u *unstructured.Unstructured, r State) State {
	if _, seen := generationSeen(u); !seen {
		return r
	}
	replicas := intAt(u, 1, "spec", "replicas")
	made := intAt(u, 0, "status", "replicas")
	updated := intAt(u, 0, "status", "updatedReplicas")
	ready := intAt(u, 0, "status", "readyReplicas")
	if ready < made {
		return inProgress("paused; Ready: %d/%d", ready, made)
	}
	return current("paused: its rollout waits for spec.paused to be false; updated: %d/%d, ready: %d/%d",
		updated, replicas, ready, made)
}

// generationSeen reports whether the controller has observed the object's
// generation, and if not, the InProgress readiness that says so.
func generationSeen(u *unstructured.Unstructured) (State, bool) {
	observed := intAt(u, 0, "status", "observedGeneration")
	if observed < u.GetGeneration() {
		return inProgress("%s generation is %d, but latest observed generation is %d", u.GetKind(), u.GetGeneration(), observed), false
	}
	return State{Status: status.CurrentStatus}, true
}

func strategy(u *unstructured.Unstructured) string {
	s, _, _ := unstructured.NestedString(u.Object, "spec", "updateStrategy", "type")
	return s
}

func paused(u *unstructured.Unstructured) bool {
	p, _, _ := unstructured.NestedBool(u.Object, "spec", "paused")
	return p
}

// intAt returns the integer at path, or def when it is not set.
func intAt(u *unstructured.Unstructured, def int64, path ...string) int64 {
	if v, found, err := unstructured.NestedInt64(u.Object, path...); found && err == nil {
		return v
	}
	return def
}

func inProgress(format string, args ...any) State {
	return State{Status: status.InProgressStatus, Message: fmt.Sprintf(format, args...)}
}

func current(format string, args ...any) State {
	return State{Status: status.CurrentStatus, Message: fmt.Sprintf(format, args...)}
}
