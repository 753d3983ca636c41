package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// podNamespaceFile holds the namespace of a pod's service account; the
// leader election takes its namespace from it when none is given.
const podNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// checkNamespaces reports every name of --watch-namespaces that cannot be a
// namespace.
func checkNamespaces(list string) error {
	var errs []error
	for ns := range strings.SplitSeq(list, ",") {
		if ns = strings.TrimSpace(ns); ns == "" {
			continue
		}
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("--watch-namespaces: %q is not a namespace name: %s", ns, strings.Join(msgs, "; ")))
		}
	}
	return errors.Join(errs...)
}

// checkLeaderElection refuses --leader-elect without a namespace for its
// Lease outside a pod, where controller-runtime would find none.
func checkLeaderElection(elect bool, namespace string) error {
	if !elect || namespace != "" {
		return nil
	}
	if _, err := os.Stat(podNamespaceFile); err == nil {
		return nil
	}
	return errors.New("--leader-elect outside a pod needs --leader-election-namespace")
}
