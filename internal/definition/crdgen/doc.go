// Package crdgen makes what the operator writes for a ComponentDefinition:
// the CRD of its kind (the names, the printer columns, a revision's schema
// as the spec and a Component's status with the revision an instance runs),
// checked as the API server will check it; the view and edit ClusterRoles
// of the kind, aggregated into Kubernetes' own; and the checks that refuse
// a kind clashing with CRDs the operator did not write for it, or a group
// it may not serve.
package crdgen
