// Package release makes what lets a user check a release of wavekit:
// artifacts that are the same bytes each time they are built from the
// same commit, the software bill of materials of each Go binary, and the
// build's provenance.
//
// # The same bytes twice
//
// Go builds with -trimpath, and the images and krew archives with the
// commit's time, are the same on every build; a Helm chart archive is not
// (helm package stamps each file with the time of packaging). NormalizeChart
// rewrites one with every file stamped with the commit's time, in the same
// order, with the same gzip header.
//
// # SBOM
//
// SBOM reads the module graph a Go binary was built with (the build
// information Go writes into it, what `go version -m` prints) and writes a
// CycloneDX 1.6 JSON document with one component per module, its version
// and package URL, and the build's settings as properties; its serial
// number and time come from the binary and the commit, so the same binary
// gives the same document. CycloneDX, by its Go library, because it is
// the format Go's own tool for it (cyclonedx-gomod) writes and scanners
// (Trivy, Grype, Dependency-Track) read.
//
// # Provenance
//
// Provenance writes an in-toto Statement v1 whose predicate is SLSA
// Provenance v1: the subjects are the artifacts and their SHA-256, the
// build definition names the make target, the version and the commit, the
// run details the builder. It carries no time of its own, so it is
// reproducible too.
package release
