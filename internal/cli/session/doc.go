// Package session is what every command of one run of the wavekit command
// line shares: the global flags (the kubeconfig, context, namespace,
// operator name, client-side rate limits) and where it writes (Session),
// the cluster they reach (Cluster, Connect), the -o formats of tables,
// errors followed by what to do (Hint), an exit code of one's own
// (ExitError, ErrorExitCode) and the check of positional arguments
// (ExactArgs).
package session
