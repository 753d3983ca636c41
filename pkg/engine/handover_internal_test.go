package engine

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestNormaliseCopiesUnlessHandedOver: preparing a caller's object leaves
// it as it was (the caller may apply it again, as the CLI's passes do);
// an object handed over (pkg/internal/handover) is prepared in place.
func TestNormaliseCopiesUnlessHandedOver(t *testing.T) {
	secret := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Secret",
			"metadata":   map[string]any{"name": "s", "namespace": "ns", "creationTimestamp": nil},
			"stringData": map[string]any{"password": "x"},
		}}
	}
	for _, handedOver := range []bool{false, true} {
		p := &plan.Preparer{Prefix: "wavekit.dev", Defaults: manifests.Defaults{}.WithFallbacks(), HandedOver: handedOver}
		obj := secret()
		d, err := p.Normalise(0, obj)
		if err != nil {
			t.Fatal(err)
		}
		if _, folded := d.Object.Object["stringData"]; folded {
			t.Fatalf("handed over %t: stringData was not folded into data: %v", handedOver, d.Object.Object)
		}
		_, callersKept := obj.Object["stringData"]
		if same := d.Object == obj; same != handedOver || callersKept == handedOver {
			t.Errorf("handed over %t: prepared the caller's object itself: %t; the caller's object kept stringData: %t", handedOver, same, callersKept)
		}
	}
}
