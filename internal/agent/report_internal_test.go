package agent

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestReportTranslatesGenerations: what the local Component says at its
// own generation is reported at the ComponentWork generation it was
// written from; anything older at none.
func TestReportTranslatesGenerations(t *testing.T) {
	w := &v1alpha1.ComponentWork{ObjectMeta: metav1.ObjectMeta{Generation: 7}}
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	c.Status.ObservedGeneration = 3
	c.Status.Conditions = []metav1.Condition{
		{Type: component.ConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: 3},
		{Type: component.ConditionStalled, Status: metav1.ConditionFalse, ObservedGeneration: 2},
	}
	c.Status.Attempt = &component.Attempt{Generation: 3, RenderDigest: "sha256:ab", Result: component.ResultFailed}
	c.Status.Inventory = []manifests.InventoryItem{{Phase: manifests.PhaseReady}, {Phase: manifests.PhaseCreating}}

	got := reportOf(w, c, 6, "v1")
	if got.ObservedGeneration != 6 {
		t.Errorf("observedGeneration %d, want 6 (the work generation the Component was written from)", got.ObservedGeneration)
	}
	if got.Conditions[0].ObservedGeneration != 6 || got.Conditions[1].ObservedGeneration != 0 {
		t.Errorf("conditions at %d and %d, want 6 and 0", got.Conditions[0].ObservedGeneration, got.Conditions[1].ObservedGeneration)
	}
	if got.Attempt.Generation != 6 || got.RenderDigest != "sha256:ab" {
		t.Errorf("attempt at %d with %q, want 6 and sha256:ab", got.Attempt.Generation, got.RenderDigest)
	}
	if got.Inventory != (v1alpha1.WorkInventory{Objects: 2, Ready: 1}) {
		t.Errorf("inventory %+v, want 2 objects, 1 ready", got.Inventory)
	}
	c.Generation = 4 // written again, not yet reconciled
	if got := reportOf(w, c, 7, "v1"); got.ObservedGeneration != 0 || got.Conditions[0].ObservedGeneration != 0 {
		t.Errorf("a Component not reconciled at its generation reports %d, want 0", got.ObservedGeneration)
	}
}
