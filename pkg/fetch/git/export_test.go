package git

import "github.com/ProtonMail/go-crypto/openpgp"

// FingerprintOf is how messages name an OpenPGP key.
func FingerprintOf(e *openpgp.Entity) string { return pgpFingerprint(e.PrimaryKey.Fingerprint) }
