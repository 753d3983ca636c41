package egress

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// addressIndex indexes the informers' objects by their addresses.
const addressIndex = "address"

// ClusterOwners names the owners of addresses from informer caches of a
// cluster's Services (cluster IPs), Nodes (every address, host names too)
// and pods (pod IPs), kept to names and addresses. The informers start at
// the first lookup, so a cluster whose API server never dials out (most
// test clusters) costs nothing; that lookup waits up to firstLookupWait
// for them to sync, every later one reads memory and never waits. An
// address may have no owner while they sync.
type ClusterOwners struct {
	kinds   []kindInformer // in the order of lookup
	ctx     context.Context
	cancel  context.CancelFunc
	start   sync.Once
	started chan struct{} // closed at the first lookup
	done    chan struct{}
}

// firstLookupWait bounds how long the first lookup waits for the informers
// to sync: one refusal, once per cluster.
const firstLookupWait = 3 * time.Second

type kindInformer struct {
	kind     string
	informer cache.SharedIndexInformer
}

// WatchOwners starts watching the cluster of cfg in the background, once
// its API server answers; Stop ends it.
func WatchOwners(cfg *rest.Config) (*ClusterOwners, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.UserAgent = "wavekit-egress-gate"
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the egress gate's client of %s: %w", cfg.Host, err)
	}
	factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0, informers.WithTransform(keepAddresses))
	core := factory.Core().V1()
	o := &ClusterOwners{started: make(chan struct{}), done: make(chan struct{})}
	// A Service's address first; a Node's before a pod's, since pods on
	// the host network share it.
	o.kinds = []kindInformer{
		{KindService, core.Services().Informer()},
		{KindNode, core.Nodes().Informer()},
		{KindPod, core.Pods().Informer()},
	}
	for _, k := range o.kinds {
		if err := k.informer.AddIndexers(cache.Indexers{addressIndex: addressesOf}); err != nil {
			return nil, fmt.Errorf("indexing %ss by address: %w", k.kind, err)
		}
	}
	o.ctx, o.cancel = context.WithCancel(context.Background())
	go func() {
		defer close(o.done)
		select {
		case <-o.started:
		case <-o.ctx.Done():
			return
		}
		if waitForAPIServer(o.ctx, clientset) == nil {
			factory.Start(o.ctx.Done())
		}
		<-o.ctx.Done()
		factory.Shutdown()
	}()
	return o, nil
}

// synced starts the informers at the first lookup and waits, up to
// firstLookupWait, until they have synced.
func (o *ClusterOwners) synced() {
	o.start.Do(func() { close(o.started) })
	synced := make([]cache.InformerSynced, len(o.kinds))
	for i, k := range o.kinds {
		synced[i] = k.informer.HasSynced
	}
	ctx, cancel := context.WithTimeout(o.ctx, firstLookupWait)
	defer cancel()
	cache.WaitForCacheSync(ctx.Done(), synced...)
}

// waitForAPIServer polls until the API server answers /version, so that the
// informers do not start in their back-off when the gate starts first.
func waitForAPIServer(ctx context.Context, clientset kubernetes.Interface) error {
	return wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		return clientset.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Error() == nil, nil
	})
}

// Stop ends the watch and waits until the informers have stopped.
func (o *ClusterOwners) Stop() {
	o.cancel()
	<-o.done
}

// Owner returns the Service, Node or pod that host is an address of.
func (o *ClusterOwners) Owner(host string) (Owner, bool) {
	o.synced()
	key := canonical(host)
	for _, k := range o.kinds {
		objects, err := k.informer.GetIndexer().ByIndex(addressIndex, key)
		if err != nil || len(objects) == 0 {
			continue
		}
		if m, err := meta.Accessor(objects[0]); err == nil {
			return Owner{Kind: k.kind, Namespace: m.GetNamespace(), Name: m.GetName()}, true
		}
	}
	return Owner{}, false
}

// addressesOf is the index function: the addresses of a Service, Node or
// pod.
func addressesOf(obj any) ([]string, error) {
	var addresses []string
	switch o := obj.(type) {
	case *corev1.Service:
		addresses = append(addresses, o.Spec.ClusterIPs...)
	case *corev1.Node:
		for _, a := range o.Status.Addresses {
			addresses = append(addresses, a.Address)
		}
	case *corev1.Pod:
		for _, ip := range o.Status.PodIPs {
			addresses = append(addresses, ip.IP)
		}
	}
	keys := make([]string, 0, len(addresses))
	for _, a := range addresses {
		if a != "" && a != corev1.ClusterIPNone {
			keys = append(keys, canonical(a))
		}
	}
	return keys, nil
}

// canonical writes an IP address one way (IPv6 has several); a host name
// stays as it is.
func canonical(host string) string {
	if addr, err := netip.ParseAddr(host); err == nil {
		return addr.Unmap().String()
	}
	return host
}

// keepAddresses is the informers' transform: it keeps of each object only
// what a lookup needs, so a cluster of many pods costs the gate little
// memory.
func keepAddresses(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Service:
		return &corev1.Service{ObjectMeta: nameOnly(o.ObjectMeta), Spec: corev1.ServiceSpec{ClusterIPs: o.Spec.ClusterIPs}}, nil
	case *corev1.Node:
		return &corev1.Node{ObjectMeta: nameOnly(o.ObjectMeta), Status: corev1.NodeStatus{Addresses: o.Status.Addresses}}, nil
	case *corev1.Pod:
		return &corev1.Pod{ObjectMeta: nameOnly(o.ObjectMeta), Status: corev1.PodStatus{PodIPs: o.Status.PodIPs}}, nil
	}
	return obj, nil
}

func nameOnly(m metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion}
}
