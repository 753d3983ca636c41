// Package register is the hub's side of a pulled cluster: Register makes
// the cluster's namespace on the hub (internal/fleet's WorkNamespace), the
// ServiceAccount that is its agent's identity, the Role that lets that
// identity read the ComponentWorks of that namespace, write their status,
// renew its Lease and request its own next token, nothing else; and the
// cluster Secret of the sets' namespace, labelled as a pulled cluster, that
// sets select it by (no kubeconfig: the hub holds no credential of the
// cluster). Credential issues the agent's first token; Bootstrap, instead,
// a bootstrap token (bootstrap.go) whose groups name the cluster and which
// may only request the agent's client certificate, of the identity
// AgentUser in AgentsGroup, which package approve signs off. The agent's
// RoleBinding binds both its ServiceAccount and that certificate's user.
package register
