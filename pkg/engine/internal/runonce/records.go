package runonce

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/expiry"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Records remembers, per owner and object, the render (digest) at which
// this process recorded a run-once object as run. The inventory item's Ran
// is the record that counts; this is its copy for the case where the status
// that carried it was not written (a conflict with another writer of the
// component, a timeout): the next pass reads the item as it was before the
// create, and finds the Job gone (its TTL), so without this copy it would
// create it a second time. Owners are told apart by UID, so that a
// component deleted and created again under its name runs its hooks anew.
// An owner without a UID is not remembered.
type Records struct {
	ran *expiry.Map[recordKey, string]
}

type recordKey struct {
	owner  types.UID
	object manifests.ObjectKey
}

// NewRecords returns an empty memory, kept for EndStateMemory after each
// record, on the clock now.
func NewRecords(now func() time.Time) *Records {
	return &Records{ran: expiry.New[recordKey, string](EndStateMemory, now)}
}

// Ran records whether the object of key, owned by owner, ran at digest.
func (r *Records) Ran(owner types.UID, key manifests.ObjectKey, digest string, ran bool) {
	if owner == "" {
		return
	}
	k := recordKey{owner: owner, object: key}
	if !ran {
		r.ran.Delete(k)
		return
	}
	r.ran.Put(k, digest)
}

// RanAt tells whether the object of key, owned by owner, was recorded as
// run at digest.
func (r *Records) RanAt(owner types.UID, key manifests.ObjectKey, digest string) bool {
	if owner == "" {
		return false
	}
	at, ok := r.ran.Get(recordKey{owner: owner, object: key})
	return ok && at == digest
}
