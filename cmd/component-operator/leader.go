package main

import (
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// leaseRequestTimeout bounds one request of the leader election, as
// controller-runtime bounds it: half its renew deadline (10 s).
const leaseRequestTimeout = 5 * time.Second

// leaderIdentity is the identity a replica holds its Lease under: the
// --leader-election-identity flag, else $POD_NAME (the chart sets it), else
// "" (controller-runtime's: the host name and a new UUID at every start).
func leaderIdentity(flag string) string {
	if flag != "" {
		return flag
	}
	return os.Getenv("POD_NAME")
}

// leaderLock is the Lease name in namespace (the pod's when empty), as
// controller-runtime makes it, held under identity. A replica that keeps
// its identity across restarts (a pod's name) takes its Lease back as soon
// as it asks again: when an API server away for longer than the renew
// deadline made it lose the Lease and exit, it leads again once the server
// answers, not a Lease duration (15 s) later, as a new identity must wait.
// Each replica must have an identity of its own.
func leaderLock(cfg *rest.Config, namespace, name, identity string) (resourcelock.Interface, error) {
	if namespace == "" {
		data, err := os.ReadFile(podNamespaceFile)
		if err != nil {
			return nil, fmt.Errorf("the leader election's namespace: %w", err)
		}
		namespace = strings.TrimSpace(string(data))
	}
	cfg = rest.AddUserAgent(rest.CopyConfig(cfg), "leader-election")
	cfg.Timeout = leaseRequestTimeout
	// A connection of its own (client-go shares a transport, and so one
	// HTTP/2 connection, between configs that differ in no Dial): over
	// a slow link, a renewal then waits for its own few bytes, not behind
	// megabytes of watch events and applies, and a leader whose link is
	// slow but alive keeps its Lease instead of stepping down.
	cfg.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("the leader election's client: %w", err)
	}
	coordination, err := coordinationv1client.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("the leader election's client: %w", err)
	}
	return resourcelock.New(resourcelock.LeasesResourceLock, namespace, name, core, coordination,
		resourcelock.ResourceLockConfig{Identity: identity})
}
