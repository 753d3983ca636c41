package localcloud

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestAddresses: each Service gets the first free address and keeps it; a
// released address goes to the next Service; an address a Service already
// had is claimed for it, and for no other.
func TestAddresses(t *testing.T) {
	a := newAddresses()
	web, db, cache := types.NamespacedName{Namespace: "shop", Name: "web"}, types.NamespacedName{Namespace: "shop", Name: "db"}, types.NamespacedName{Namespace: "shop", Name: "cache"}
	if !a.claim(db, "127.0.0.3") {
		t.Fatal("claim of a free address refused")
	}
	if a.claim(cache, "127.0.0.3") || a.claim(cache, "10.0.0.1") {
		t.Error("claim of a taken address or one out of the range granted")
	}
	for _, want := range []struct {
		key  types.NamespacedName
		addr string
	}{{web, "127.0.0.2"}, {web, "127.0.0.2"}, {cache, "127.0.0.4"}, {db, "127.0.0.3"}} {
		if got, err := a.get(want.key); err != nil || got.String() != want.addr {
			t.Errorf("get(%s) = %s, %v; want %s", want.key, got, err, want.addr)
		}
	}
	a.release(web)
	if got, _ := a.get(types.NamespacedName{Namespace: "shop", Name: "new"}); got.String() != "127.0.0.2" {
		t.Errorf("the address of a released Service went elsewhere: the next Service got %s", got)
	}
}

// TestAddressesSkipNetworkAndBroadcast: after 127.0.0.254 comes 127.0.1.1.
func TestAddressesSkipNetworkAndBroadcast(t *testing.T) {
	a := newAddresses()
	for i := 2; i <= 254; i++ {
		if _, err := a.get(types.NamespacedName{Name: fmt.Sprint("s", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := a.get(types.NamespacedName{Name: "next"}); got.String() != "127.0.1.1" {
		t.Errorf("the 254th address is %s, want 127.0.1.1", got)
	}
}
