// Package egresstest holds what the suites that prove a local cluster is a
// closed box share: the chart egress (ChartDir), which makes kube-apiserver
// connect to the cluster's own addresses as keda's chart does — a mutating
// webhook with failurePolicy Ignore on Secrets and Pods, a validating
// webhook with failurePolicy Fail on labelled ConfigMaps, an APIService, all
// backed by Services of a Deployment — the refusals the egress gate gives
// for it, the checks of what a user then sees (ExpectRefusals), and a trace
// of kube-apiserver's connections at the socket (TraceAPIServer).
package egresstest
