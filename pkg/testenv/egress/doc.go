// Package egress is the gate that keeps a local cluster's API server on this
// machine. kube-apiserver connects to the cluster's own addresses to call
// admission webhooks, aggregated APIs (APIServices) and kubelets (logs, exec,
// port-forward); on a cluster whose Services and pods are simulated nothing
// on the machine owns those addresses, so without a gate the connection
// would leave through the default route and reach whatever host a network
// has there — with the object being admitted, a Secret's data included.
//
// WriteConfig writes kube-apiserver's EgressSelectorConfiguration
// (--egress-selector-config-file, apiserver.k8s.io/v1beta1): the cluster
// selection (Services, APIServices, kubelets) and the controlplane selection
// (webhooks given by URL) go as HTTP CONNECT over a Unix socket to the Gate;
// etcd stays Direct. The Gate passes a connection to a loopback target
// (127.0.0.0/8, ::1, localhost: a webhook server of the test process on
// https://127.0.0.1:PORT, the API server itself) straight through, and
// refuses every other at once with a reason that kube-apiserver puts into
// its error, which reaches the user: "no container serves Service
// keda/keda-admission-webhooks in the local cluster". A webhook with
// failurePolicy Ignore thus costs nothing, one with Fail fails fast and
// says why, and an APIService is Available=False with the reason in its
// message.
//
// Decide is the decision as a pure function of the target and Owners, which
// name what an address belongs to: ClusterOwners finds the Service, pod or
// Node from informer caches, so a refusal never waits for a request to the
// API server.
//
// pkg/testenv runs a Gate in the test process; `wavekit cluster create` runs
// one as a process of the cluster (wavekit cluster egress-gate).
package egress
