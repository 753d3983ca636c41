// Package testcluster starts the clusters of wavekit's own suites: a real
// kube-apiserver and etcd (controller-runtime's envtest) with wavekit's CRDs
// and the test CRDs installed, for every suite that needs an API server. It
// stands on pkg/testenv, the test environment wavekit offers the authors of
// component operators, and adds what only wavekit's suites need: several
// bare clusters at once (StartClusters), one cluster shared by a package's
// benchmarks (Once), restarting kube-apiserver (RestartAPIServer) and Flux's
// CRDs for the benchmarks against Flux.
//
// By default only kube-apiserver and etcd run: objects are stored and
// validated, but nothing reconciles them, so a Deployment never gets a
// ReplicaSet and a deleted Namespace stays Terminating. That is enough for
// specs of the engine that assert what wavekit writes.
//
// With Options.Controllers the control plane is a whole local cluster, all
// built by hack/control-plane.sh and run as child processes whose logs go to
// a temporary directory:
//
//   - kube-controller-manager with every default controller (Deployment,
//     ReplicaSet, Job, StatefulSet, namespace, garbage collector, service
//     accounts and their tokens, signed with kube-apiserver's key);
//   - kube-scheduler, which binds pods to Nodes;
//   - kwok, which simulates the Nodes FakeNodes (Ready, renewing their
//     Leases) and moves each pod bound to them through its phases by the
//     stages of stages.yaml: Running and Ready; Succeeded once Running if a
//     Job owns it; Failed, with exit code 1, if it carries FailAnnotation;
//     Running but never Ready (and never finished) if it carries
//     NotReadyAnnotation; deleted at once when its deletion starts.
//
// kwok simulates no containers: no image is pulled (any image name works and
// none is checked), no command runs, no probe is called, so readiness is
// kwok's stage and not the program's. There is no network either: pods get
// IPs from kwok and Services list them as endpoints, but nothing answers on
// them, and kube-apiserver, with or without Controllers, reaches none of
// them: pkg/testenv's egress gate refuses them with a reason. The ServiceAccount admission plugin is on (envtest turns
// it off for the bare API server): a pod runs as an account that exists, or
// the API server refuses it, as a real cluster does.
package testcluster
