package writes

import (
	"testing"
	"time"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestPurges: a purge is remembered at its digest only, and forgotten after
// purgeMemoryTTL, so that the memory of a long-running operator is bounded.
func TestPurges(t *testing.T) {
	now := time.Unix(1000, 0)
	p := NewPurges(func() time.Time { return now })
	key := manifests.ObjectKey{Group: "batch", Kind: "Job", Namespace: "ns", Name: "migrate"}
	other := manifests.ObjectKey{Kind: "ConfigMap", Namespace: "ns", Name: "x"}
	p.Record(key, "d2")
	if !p.PurgedAt(key, "d2") || p.PurgedAt(key, "d3") || p.PurgedAt(other, "d2") {
		t.Fatalf("purge of %s at d2: remembered at d2 only, for that key only", key)
	}
	now = now.Add(purgeMemoryTTL + time.Second)
	if p.PurgedAt(key, "d2") {
		t.Fatalf("purge of %s is remembered after %s", key, purgeMemoryTTL)
	}
	p.Record(other, "d1")
	if n := p.digest.Len(); n != 1 {
		t.Fatalf("record kept %s past its time", key)
	}
}
