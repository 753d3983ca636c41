package egress

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Owner is what in the cluster an address belongs to.
type Owner struct {
	// Kind is KindService, KindPod or KindNode.
	Kind string
	// Namespace is empty for a Node.
	Namespace string
	Name      string
}

// The kinds of Owner.
const (
	KindService = "Service"
	KindPod     = "Pod"
	KindNode    = "Node"
)

// Owners names what an address (an IP, or a Node's host name) belongs to.
// Owner must answer at once: the gate calls it on every refusal.
type Owners interface {
	Owner(host string) (Owner, bool)
}

// noOwners knows no address: the gate's Owners until it watches a cluster.
type noOwners struct{}

func (noOwners) Owner(string) (Owner, bool) { return Owner{}, false }

// Decide says whether the gate passes a connection to target (host:port,
// as kube-apiserver writes it in its CONNECT request): it passes loopback
// targets and refuses every other, with a reason that names what owns the
// address when owners knows it (asked with an IP address in netip's form,
// so that an IPv6 address written another way is found).
func Decide(target string, owners Owners) (pass bool, reason string) {
	host, _, err := net.SplitHostPort(target)
	if err != nil {
		return false, fmt.Sprintf("the local cluster's egress gate takes host:port, not %q", target)
	}
	if IsLoopback(host) {
		return true, ""
	}
	if owners == nil {
		owners = noOwners{}
	}
	host = canonical(host)
	owner, found := owners.Owner(host)
	if !found {
		return false, fmt.Sprintf("the local cluster sends nothing off the machine: %s is no Service, pod or Node of it", host)
	}
	return false, refusal(owner)
}

// refusal says why a connection to what owner names cannot be made.
func refusal(o Owner) string {
	switch o.Kind {
	case KindService:
		return fmt.Sprintf("no container serves Service %s/%s in the local cluster", o.Namespace, o.Name)
	case KindPod:
		return fmt.Sprintf("no container runs for pod %s/%s in the local cluster", o.Namespace, o.Name)
	case KindNode:
		return fmt.Sprintf("no kubelet runs on Node %s in the local cluster: kwok simulates it", o.Name)
	}
	return fmt.Sprintf("nothing serves %s %s in the local cluster", o.Kind, strings.TrimPrefix(o.Namespace+"/"+o.Name, "/"))
}

// IsLoopback reports whether host is a loopback address (127.0.0.0/8, ::1,
// an IPv4-mapped 127.x) or the name localhost.
func IsLoopback(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}
