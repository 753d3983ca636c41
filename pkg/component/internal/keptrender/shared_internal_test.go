package keptrender

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/pkg/sealing"
)

func TestSharedKeysAreOnePerConnectionAndSecret(t *testing.T) {
	local, other := &rest.Config{Host: "a"}, &rest.Config{Host: "a"}
	secret := types.NamespacedName{Namespace: "ops", Name: "op-render-key"}
	first, releaseFirst := Shared(local, nil, nil, secret)
	second, releaseSecond := Shared(local, nil, nil, secret)
	if first != second {
		t.Fatal("two Reconcilers of one manager hold two Keys of one Secret")
	}
	if elsewhere, release := Shared(other, nil, nil, secret); elsewhere == first {
		t.Fatal("another manager's connection shares the Keys")
	} else {
		release()
	}
	if renamed, release := Shared(local, nil, nil, types.NamespacedName{Namespace: "ops", Name: "x"}); renamed == first {
		t.Fatal("another Secret shares the Keys")
	} else {
		release()
	}
	releaseFirst()
	releaseFirst() // a second call gives nothing back twice
	if again, release := Shared(local, nil, nil, secret); again != first {
		t.Fatal("forgotten while a Reconciler still holds them")
	} else {
		release()
	}
	releaseSecond()
	if fresh, release := Shared(local, nil, nil, secret); fresh == first {
		t.Fatal("kept after the last Reconciler gave them back")
	} else {
		release()
	}
}

func TestOnRotateCallsUntilRemoved(t *testing.T) {
	k := NewKeys(nil, nil, types.NamespacedName{Namespace: "ops", Name: "key"})
	var kept, removed int
	k.OnRotate(func() { kept++ })
	remove := k.OnRotate(func() { removed++ })
	rotate := func() {
		ring, err := sealing.New()
		if err != nil {
			t.Fatal(err)
		}
		k.observeRing(ring)
	}
	rotate() // the first ring read is no rotation
	rotate()
	remove()
	rotate()
	if kept != 2 || removed != 1 {
		t.Fatalf("calls after two rotations, one after the removal: kept %d, removed %d", kept, removed)
	}
}
