package history

import (
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Type is what a recorded change did.
type Type string

// The types of recorded changes.
const (
	Added    Type = "ADDED"
	Modified Type = "MODIFIED"
	Deleted  Type = "DELETED"
	// Listed is an object as a list showed it: at the start of a
	// recording, and after a gap, when a change may have been lost.
	Listed Type = "LISTED"
	// Vanished is an object a list after a gap no longer holds: it was
	// deleted in the gap, at a resourceVersion not known (RV is the list's).
	Vanished Type = "VANISHED"
)

// Event is one change of one object as a watch saw it.
type Event struct {
	Cluster string
	Kind    string
	Type    Type
	// Object is the object after the change (its last state for a
	// deletion), without managedFields.
	Object *unstructured.Unstructured
	// RV is the object's resourceVersion (a list's for Listed and Vanished).
	RV uint64
	At time.Time
}

// Key names the object of the event: cluster, kind, namespace and name.
func (e Event) Key() string {
	return e.Cluster + "/" + e.Kind + "/" + e.Object.GetNamespace() + "/" + e.Object.GetName()
}

// Gap is a stretch of a kind's changes on a cluster that a watch may have
// missed: those after RV From up to RV To, when it listed again.
type Gap struct {
	Cluster, Kind string
	From, To      uint64
	At            time.Time
}

// ParseRV reads a resourceVersion as the number it is; 0 when it is not one.
func ParseRV(rv string) uint64 {
	n, _ := strconv.ParseUint(rv, 10, 64)
	return n
}
