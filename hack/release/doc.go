// Command release makes the evidence of `make dist` (internal/release):
// chart archives stamped with the commit's time, the SBOM of each CLI
// binary, and the provenance of every artifact in the directory; and
// signs them with a release key: keygen makes a cosign key pair, sign
// signs SHA256SUMS, the provenance and each image of a dist directory
// (the images' signatures and attestations go to <image>.referrers.json,
// which `hack/image push -referrers` attaches), prov writes the charts'
// Helm provenance files, and sign-artifact signs a chart after helm push.
package main
