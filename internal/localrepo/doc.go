// Package localrepo serves charts and artifacts on localhost, for the demo
// and the tests of the reference operator:
//
//   - Repository is a Helm repository: packaged charts and an index.yaml that
//     the Helm SDK builds from them, over HTTP;
//   - Artifacts serves .tar.gz files as Flux's source-controller serves its
//     artifacts, with the digest a source's status.artifact carries.
//
// Charts are written with PackageChart from a few files. Nothing here is
// meant for production: the servers listen on 127.0.0.1 only.
package localrepo
