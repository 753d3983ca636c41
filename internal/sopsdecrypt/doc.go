// Package sopsdecrypt decrypts SOPS-encrypted Kubernetes objects and values
// files with age keys.
//
// # Format
//
// The package reads the files `sops --encrypt --age` writes (SOPS 3): the
// `sops` metadata, each value's ENC[AES256_GCM,...] (AES-256-GCM with the
// value's path as additional data), and the MAC over the values. The
// cryptography is Go's crypto/aes and crypto/cipher and filippo.io/age; the
// YAML is go.yaml.in/yaml/v3, as SOPS reads it. The tests encrypt with
// SOPS's own Go module and decrypt here, so the two cannot drift apart
// unnoticed.
//
// SOPS's own module is not linked into the operator: its key service links
// the AWS, Google Cloud, Azure and Vault clients (40 MB of binary and 30 MB
// of memory in the reference operator), and only age keys are supported.
//
// # What is supported
//
//   - age keys in one key group (Shamir's secret sharing is refused);
//   - every rule of which values are encrypted: unencrypted_suffix (the
//     default _unencrypted), encrypted_suffix, encrypted_regex,
//     unencrypted_regex; with a comment rule (encrypted_comment_regex,
//     unencrypted_comment_regex) a value counts as encrypted when it is in
//     ENC[...] form, as the comments that decide it are not kept;
//   - mac_only_encrypted; value types str, int, float, bool, bytes and time.
//
// # Keys and secrets
//
// Keys come from the caller (the keys of a Secret that end in .agekey, or a
// file), never from the environment, the home directory or a key service,
// so nothing outside what the caller gives is read or run. PGP keys and
// cloud key services are not supported: an error names them.
//
// Decrypted values exist only in the objects and bytes returned: errors
// name objects, files, paths and age recipients (public keys), never a
// value.
package sopsdecrypt
