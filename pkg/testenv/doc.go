// Package testenv starts a local Kubernetes cluster for the tests of a
// component operator: kube-apiserver and etcd as controller-runtime's envtest
// starts them, and with them the parts that make it a cluster —
// kube-controller-manager with every default controller (Deployments,
// ReplicaSets, Jobs, namespaces, garbage collection, service accounts and
// their tokens), kube-scheduler, and Nodes that kwok simulates. A Deployment
// your operator applies rolls out and becomes Available, a Job runs and
// completes, a deleted Namespace is emptied and removed — by the real
// controllers, as in a cluster, so a test can wait for what a user waits for.
// With them runs a simulated cloud (package localcloud, see Environment.Cloud):
// a default StorageClass whose claims get a volume and bind, so StatefulSets
// with volumeClaimTemplates run, and an address for every Service of type
// LoadBalancer.
//
// Environment has envtest's shape: it embeds envtest.Environment (CRD paths,
// the binaries' directory, the scheme, Config) and its Start and Stop have
// envtest's signatures, so a suite written for envtest changes its import
// and type name:
//
//	testEnv := &testenv.Environment{Environment: envtest.Environment{
//		CRDDirectoryPaths:     []string{filepath.Join("..", "config", "crd", "bases")},
//		ErrorIfCRDPathMissing: true,
//	}}
//	cfg, err := testEnv.Start()
//	...
//	err = testEnv.Stop()
//
// The binaries come from KUBEBUILDER_ASSETS, else BinaryAssetsDirectory, else
// wavekit's hack/control-plane.sh, which builds them from the Go module proxy
// on first use (minutes, once) into a cache: run `make control-plane` in a
// wavekit checkout beforehand (it prints the directory), or
// `wavekit cluster create`, which builds them into the same cache for a
// local cluster (`wavekit cluster delete` removes that cluster again), or
// set KUBEBUILDER_ASSETS to that cache directory.
//
// kwok simulates no containers: no image is pulled, no command runs and no
// probe is called, so a pod is Ready because kwok says so; there is no
// network either (Services have endpoints, but nothing answers). Pods that
// carry FailAnnotation fail, pods that carry NotReadyAnnotation run but never
// become Ready. APIServerOnly starts kube-apiserver and etcd alone, as envtest
// does: objects are stored and validated, but nothing reconciles them.
//
// The cluster sends nothing off the machine, with or without APIServerOnly.
// Before kube-apiserver starts, Start runs an egress gate (package egress)
// in the test process and gives kube-apiserver an egress selector
// configuration (--egress-selector-config-file) that sends every connection
// to the cluster's own addresses through it: admission webhooks, aggregated
// APIs (APIServices), kubelets (logs, exec, port-forward). The gate passes a
// loopback target straight through — a webhook server of the test on
// https://127.0.0.1:PORT, as envtest's WebhookInstallOptions serves, works
// as before — and refuses any other at once, with a reason that
// kube-apiserver puts into its error: a webhook with failurePolicy Ignore
// costs nothing, one with Fail refuses with "no container serves Service
// NS/NAME in the local cluster", an APIService is Available=False with that
// reason, and reading a pod's logs says that kwok runs no kubelet.
// EgressSocket names the gate's socket. The flag replaces one that the
// APIServer's own configuration sets. The gate names a refused address's
// owner from informers on Services, Nodes and pods that start at its first
// refusal, so a cluster whose API server never dials out watches nothing.
//
// Services take their addresses from ServiceRange (198.18.0.0/16; envtest's
// default is 10.0.0.0/24), unless the APIServer's configuration sets
// --service-cluster-ip-range, and kwok gives pods addresses from PodRange
// (198.19.0.0/16): RFC 2544 sets 198.18.0.0/15 aside for network
// benchmarks, so no company network gives its hosts these addresses, and a
// test that dials one does not reach a host of the network instead.
//
// It stands on two packages of its own, which `wavekit cluster create` uses too:
// k8sbin finds (and builds on first use) the binaries, clusterrun runs the
// parts beside the API server and creates the Nodes.
package testenv
