// Package keptrender is the reconciler's memory of renders: each
// component's current render, applied on every pass until the inputs of its
// render change (Currents; the digest of those inputs is Inputs.Digest),
// its last Ready render, for a rollback (Store), and the delete hooks of
// its last render, for its deletion (Hooks, in memory only). The first two
// live in memory and in Secrets of the component's namespace,
// owned by the component:
//
//	<name>.<kind>.current-render   the current render; a restarted operator,
//	                               or the shard that takes the component
//	                               over, reads it back once instead of
//	                               rendering
//	<name>.<kind>.render           the last Ready render
//
// A render holds what the user keeps out of sight elsewhere: the values of
// Secrets, SOPS-decrypted values, values read from valuesFrom Secrets,
// passwords and keys a chart generated. So a kept render is sealed
// (pkg/sealing: gzipped JSON, AES-256-GCM) with a key that only the
// operator holds, in a Secret of its own namespace (Keys), created on first
// use; the ID of the key is the Secret's annotation wavekit.dev/render-key.
// The sealed data is bound to its Secret — namespace, name, owner and the
// annotations that say what it holds (digest, generation, inputs, source) —
// so a render copied into another Secret, or annotated as another render,
// does not open. A render that does not open (its key lost with its
// Secret or dropped by two rotations, or the Secret changed) is not
// applied: the component renders again and says why (UnreadableError).
//
// The key Secret is followed while the operator runs: the annotation
// wavekit.dev/rotate-requested-at asks for a new key, which the operator
// makes (the previous key stays for reading until the next rotation), and
// every kept render is sealed again with it. The Reconcilers of one manager
// (each served kind has one) share the keys, their one read and their one
// watch (Shared). Renders kept in plaintext by
// operators before sealing are read once and sealed.
package keptrender
