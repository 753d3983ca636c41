// Package testenv starts a real kube-apiserver and etcd (controller-runtime's
// envtest) with wavekit's CRDs and the test CRDs installed, for every suite
// that needs an API server.
package testenv
