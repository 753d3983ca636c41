// Package kubeconfig reads the kubeconfig of a component's remote target
// from a Secret, and refuses what would make the operator run code or read
// its own files: exec and auth-provider users (unless the operator allows
// them), and any reference to a file. It checks the whole kubeconfig before
// anything is built from it, so a refused one executes, reads and sends
// nothing.
package kubeconfig
