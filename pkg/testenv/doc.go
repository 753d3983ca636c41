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
// on first use (minutes, once) into a cache: run `wavekit cluster up` or
// `make control-plane` in a wavekit checkout beforehand, or set
// KUBEBUILDER_ASSETS to that cache directory.
//
// kwok simulates no containers: no image is pulled, no command runs and no
// probe is called, so a pod is Ready because kwok says so; there is no
// network either (Services have endpoints, but nothing answers). Pods that
// carry FailAnnotation fail, pods that carry NotReadyAnnotation run but never
// become Ready. APIServerOnly starts kube-apiserver and etcd alone, as envtest
// does: objects are stored and validated, but nothing reconciles them.
//
// It stands on two packages of its own, which `wavekit cluster up` uses too:
// k8sbin finds (and builds on first use) the binaries, clusterrun runs the
// parts beside the API server and creates the Nodes.
package testenv
