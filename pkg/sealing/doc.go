// Package sealing encrypts what wavekit keeps beside the objects it applies
// — the operator's kept renders, the CLI's release history — so that a
// Secret's values, a chart's generated passwords and keys, and values read
// from other Secrets are stored in plaintext only in the objects the user
// asked for.
//
// A Ring is a set of AES-256-GCM keys, each named by a random ID, one of
// them active (new data is sealed with it) and at most one previous (kept
// for reading what was sealed before a rotation). A Ring lives in a Secret
// of its own (type wavekit.dev/keys: one data entry of 32 bytes per key,
// the active and previous IDs in annotations), which Ensure reads or
// creates. Sealed data names no key: the caller keeps the ID that Seal
// returns beside it (an annotation) and hands it to Open. The additional
// data of Seal binds a sealed value to where it is kept, so that a copy
// moved to another place, or another kept value's annotations, does not
// open.
package sealing
