// Package localcluster keeps a local Kubernetes cluster on this machine for
// `wavekit cluster`: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and kwok's simulated Nodes (pkg/testenv/clusterrun), started
// as processes of their own session that outlive the command, with their
// data, certificates, logs and process ids in a directory per cluster under
// the user's state directory. Starting a cluster that exists starts its
// processes again on the same data and ports, so its kubeconfig stays valid;
// stopping it stops exactly the processes it recorded, after checking that
// each id still runs the command it started.
//
// The API server listens on 127.0.0.1 only and accepts client certificates
// of the cluster's own CA; anonymous requests are refused.
package localcluster
