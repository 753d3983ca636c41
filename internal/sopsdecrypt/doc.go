// Package sopsdecrypt decrypts SOPS-encrypted Kubernetes objects and values
// files with age keys, using SOPS's own Go module (github.com/getsops/sops/v3)
// for the format, the per-value AES-GCM and the MAC.
//
// Only age keys are used: they come from the caller (the keys of a Secret
// that end in .agekey, or a file), never from the environment, the home
// directory or a key service, so nothing outside what the caller gives is
// read or run. PGP keys and cloud key services are not supported.
//
// Decrypted values exist only in the objects and bytes returned: errors
// name objects, files and age recipients (public keys), never a value.
//
// The package carries the weight of SOPS's module (its key service links
// every cloud KMS client), so only the reference operator and the CLI
// import it; pkg/component and pkg/engine do not.
package sopsdecrypt
