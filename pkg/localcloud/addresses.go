package localcloud

import (
	"fmt"
	"net/netip"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// AddressRange is the range that load balancer addresses come from, first
// free one first: 127.0.0.2 to 127.0.255.254.
const AddressRange = "127.0.0.2-127.0.255.254"

var (
	firstAddress = netip.MustParseAddr("127.0.0.2")
	lastAddress  = netip.MustParseAddr("127.0.255.254")
)

// addresses hands out the load balancer addresses, one per Service, and
// remembers which Service holds which.
type addresses struct {
	mu     sync.Mutex
	byKey  map[types.NamespacedName]netip.Addr
	holder map[netip.Addr]types.NamespacedName
}

func newAddresses() *addresses {
	return &addresses{byKey: map[types.NamespacedName]netip.Addr{}, holder: map[netip.Addr]types.NamespacedName{}}
}

// claim records that key holds address, if it is in the range and no other
// Service holds it; it reports whether key holds it now.
func (a *addresses) claim(key types.NamespacedName, address string) bool {
	addr, err := netip.ParseAddr(address)
	if err != nil || addr.Less(firstAddress) || lastAddress.Less(addr) {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if holder, taken := a.holder[addr]; taken {
		return holder == key
	}
	if old, ok := a.byKey[key]; ok {
		delete(a.holder, old)
	}
	a.byKey[key], a.holder[addr] = addr, key
	return true
}

// get returns the address of key, allocating the first free one if it has
// none.
func (a *addresses) get(key types.NamespacedName) (netip.Addr, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if addr, ok := a.byKey[key]; ok {
		return addr, nil
	}
	for addr := firstAddress; !lastAddress.Less(addr); addr = addr.Next() {
		if _, taken := a.holder[addr]; !taken && addr.As4()[3] != 0 && addr.As4()[3] != 255 {
			a.byKey[key], a.holder[addr] = addr, key
			return addr, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("no load balancer address left in %s for Service %s", AddressRange, key)
}

// release frees the address of key, if it has one.
func (a *addresses) release(key types.NamespacedName) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if addr, ok := a.byKey[key]; ok {
		delete(a.holder, addr)
		delete(a.byKey, key)
	}
}
