// Package verify checks who made a chart before wavekit uses it: the
// fetch.Verifier implementations that fetch.ChartRequest takes.
//
//	v, err := verify.New(verify.Cosign, "signing-keys", secret.Data, cache)
//	fetched, err := fetcher.Chart(ctx, fetch.ChartRequest{..., Verifier: v})
//	// fetched.Verified says what was verified with which key.
//
// # Cosign
//
// For a chart of an OCI registry, the signature is over the digest of the
// chart's manifest, the digest the chart is then pulled by. Two formats are
// read, in this order: a Sigstore bundle attached to the manifest as an OCI
// referrer (what cosign v3 writes; through the referrers API or its tag
// fallback), and the tag sha256-<hex>.sig that earlier cosign releases
// write. The trusted keys are PEM public keys; any one that verifies one
// signature suffices. Key mode runs offline: no transparency log is asked.
// Keyless (certificate) signatures are not supported yet.
//
// # Helm provenance
//
// For a chart of a Helm repository, <archive URL>.prov is verified with
// the Helm SDK's provenance package, as `helm install --verify` does: its
// PGP signature against the keyrings (binary or ASCII-armored), and the
// archive's SHA-256 against the digest it lists for the archive's name.
//
// # The cache
//
// A Cache remembers what was verified, by provider, digest and a
// fingerprint of the key material, so that a chart verified once is not
// verified again, and no request is made for it, until its digest or the
// keys change.
package verify
