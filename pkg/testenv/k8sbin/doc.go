// Package k8sbin finds, and builds on first use, the binaries of the local
// cluster: kube-apiserver, etcd, kube-controller-manager, kube-scheduler and
// kwok. hack/control-plane.sh builds them from the Go module proxy into a
// cache directory keyed by version; this package runs it, reports its
// progress, and finds its cache when no checkout is at hand.
package k8sbin
