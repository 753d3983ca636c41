// Package components holds the commands on Components of the reference
// operator, on the cluster of --kubeconfig and --context: get, tree,
// suspend, resume and reconcile (components.go), diff component, which runs
// the operator's own code with every write a server-side dry run
// (diffcomponent.go), and dashboard, the status page served on 127.0.0.1.
// A Component is NAMESPACE/NAME, or NAME in --namespace.
package components
