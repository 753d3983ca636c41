// Package apirequest names the requests a client sends to the Kubernetes
// API server: the verb as audit logs name it (Verb) and the resource a path
// addresses (Resource). The component reconciler labels its request metric
// with them, and the test request counter (internal/testing/apicount) counts by them.
package apirequest
