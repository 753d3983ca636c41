// Package localcloud is the simulated cloud of wavekit's local cluster: what
// a cloud provider gives a real cluster and kube-apiserver with
// kube-controller-manager alone do not.
//
// Storage: a default StorageClass (StorageClassName, volume binding
// Immediate, reclaim policy Delete) whose provisioner (Provisioner) creates a
// PersistentVolume for every claim of that class — and of no class, which
// the API server's DefaultStorageClass admission or kube-controller-manager
// gives the default one — so that kube-controller-manager's volume
// controller binds the claim, as kind's local-path provisioner does. The
// volumes are hostPath volumes under VolumeRoot that nothing writes to: the
// local cluster's Nodes are simulated, so a volume only has to exist and
// bind. A class of Provisioner that a user makes with volume binding
// WaitForFirstConsumer gets its volumes once kube-scheduler has placed the
// first pod of the claim. A provisioned volume whose claim is gone is deleted when its reclaim
// policy is Delete and kept (Released) when it is Retain.
//
// Load balancers: every Service of type LoadBalancer without a
// spec.loadBalancerClass gets an address in status.loadBalancer.ingress, as
// cloud-provider-kind or MetalLB would give: the first free one of
// 127.0.0.2 to 127.0.255.254 (AddressRange). Nothing answers on it; the
// address is freed with the Service or its type.
//
// Setup adds both to a controller-runtime manager; Run runs them until its
// context ends.
package localcloud
