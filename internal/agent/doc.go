// Package agent is wavekit's pull-mode agent (`wavekit agent`): a process
// in a member cluster that only dials out to the hub. It reads the
// ComponentWorks of its own cluster's namespace on the hub (the Components
// that ComponentSets place on the cluster: internal/fleet's pull.go),
// writes each as a Component into its own cluster, where the reference
// operator's reconciler runs it as it runs any Component (waves, hooks,
// drift, deletion blocking, render-once, the inventory), and copies back
// into the ComponentWork's status what the set's cluster waves gate on
// (report.go), with generations translated to the ComponentWork's. It
// renews a Lease in its namespace on the hub (heartbeat.go) and the
// credential it reaches the hub with: a ServiceAccount token (rotate.go,
// kept in a file or in a Secret of its cluster, token.go), or, given a
// bootstrap token, a client certificate it requests by a
// CertificateSigningRequest and renews with a request of its current
// certificate (certificate.go, certrotate.go), kept in a Secret of its
// cluster (credentials.go) so that a restarted agent needs no bootstrap
// token again.
//
// Rendering happens in the member cluster, from the Component's source:
// nothing rendered is stored on the hub, so etcd's object size limit bounds
// only the spec, and the cluster must reach the source (a chart repository,
// a Git server, or a source the agent serves with --source) with its own
// credentials.
//
// Package register is the hub's side: the cluster's namespace, its agent's
// identity and rights there, and the agent's first credential; package
// approve approves the agents' certificate requests in the operator.
package agent
