package component

import (
	"strings"
	"testing"
	"time"
)

func TestReadyzCheckFailsWhileAReconcileIsStuck(t *testing.T) {
	r := &Reconciler[Component]{&core{name: "test", opts: ReconcilerOptions{ReconcileTimeout: time.Minute}, inflight: newInflight()}}
	id := r.inflight.begin()
	if err := r.ReadyzCheck(nil); err != nil {
		t.Fatalf("a reconcile within its bound: %v", err)
	}
	r.inflight.started[id] = time.Now().Add(-time.Minute - stuckGrace - time.Second)
	err := r.ReadyzCheck(nil)
	if err == nil || !strings.Contains(err.Error(), "a reconcile of test has been running for") {
		t.Fatalf("a stuck reconcile: got %v", err)
	}
	r.inflight.end(id)
	if err := r.ReadyzCheck(nil); err != nil {
		t.Fatalf("after the reconcile ended: %v", err)
	}
}
