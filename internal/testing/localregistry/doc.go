// Package localregistry runs an OCI registry (the distribution registry,
// in memory) in the calling process on localhost, and pushes Helm charts to
// it with Helm's own registry client: a real registry for tests of charts
// from oci:// repositories, with or without basic authentication.
package localregistry
