// Package localclusters holds wavekit cluster: create, list, delete and
// kubeconfig of the local clusters that package localcluster keeps on this
// machine, and the hidden verbs a cluster's own processes run (cloud,
// egress-gate, operator).
package localclusters
