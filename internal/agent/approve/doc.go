// Package approve is the hub's approver of the agents' certificates: a
// controller in the operator that approves a CertificateSigningRequest for
// the signer kubernetes.io/kube-apiserver-client only when it asks for
// exactly the identity of one registered cluster's agent (CN
// wavekit:agent:<the cluster's namespace on the hub>, O wavekit:agents, no
// other names), for client authentication only, for a bounded lifetime,
// and was made either by that cluster's bootstrap token or, to renew, by
// that agent's current certificate. kube-controller-manager signs what it
// approves. A request that claims an agent's identity and fails a check is
// denied, with the check it failed as the condition's message and an
// Event; requests of another signer, which the operator may not decide, and
// of anyone else are not its business and stay untouched. The operator's
// cache holds the agents' signer's requests only (CacheFor): a hub's
// kubelets renew theirs all the time.
//
// Check is the decision, a pure function of the request; Setup wires the
// controller into a manager when the operator may do its work.
package approve
