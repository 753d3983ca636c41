// Command release makes the evidence of `make dist` (internal/release):
// chart archives stamped with the commit's time, the SBOM of each CLI
// binary, and the provenance of every artifact in the directory.
package main
