package git

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"golang.org/x/crypto/ssh"
)

// Key name suffixes of a verification Secret, as Flux's GitRepository
// reads them.
const (
	// OpenPGPKeySuffix names a key holding ASCII-armored OpenPGP public
	// keys (gpg --export --armor).
	OpenPGPKeySuffix = ".asc"
	// SSHKeySuffix names a key holding SSH public keys, one per line in
	// authorized_keys format (the .pub file ssh-keygen writes).
	SSHKeySuffix = ".sshpub"
)

// KeyRing is a set of trusted public keys: OpenPGP and SSH. It holds no
// secret.
type KeyRing struct {
	// From says where the keys come from, for messages: "Secret keys".
	From string
	pgp  openpgp.EntityList
	ssh  []ssh.PublicKey
	// digest is the digest of the key material, which a verification
	// remembered is remembered with.
	digest string
}

// NewKeyRing reads the keys of data (a Secret's data): keys named *.asc
// hold armored OpenPGP public keys, keys named *.sshpub SSH public keys.
// Other keys are ignored; data without any is an error, and so is a key
// that cannot be read (its name is said, never its content).
func NewKeyRing(from string, data map[string][]byte) (*KeyRing, error) {
	k := &KeyRing{From: from}
	sum := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(data)) {
		value := data[name]
		switch {
		case strings.HasSuffix(name, OpenPGPKeySuffix):
			entities, err := openpgp.ReadArmoredKeyRing(bytes.NewReader(value))
			if err != nil {
				return nil, fmt.Errorf("%s: key %s is not an armored OpenPGP key ring: %w", from, name, err)
			}
			k.pgp = append(k.pgp, entities...)
		case strings.HasSuffix(name, SSHKeySuffix):
			keys, err := parseAuthorizedKeys(value)
			if err != nil {
				return nil, fmt.Errorf("%s: key %s: %w", from, name, err)
			}
			k.ssh = append(k.ssh, keys...)
		default:
			continue
		}
		fmt.Fprintf(sum, "%s\x00%d\x00%s\x00", name, len(value), value)
	}
	if len(k.pgp) == 0 && len(k.ssh) == 0 {
		return nil, fmt.Errorf("%s holds no key named *%s (OpenPGP) or *%s (SSH)", from, OpenPGPKeySuffix, SSHKeySuffix)
	}
	k.digest = hex.EncodeToString(sum.Sum(nil))
	return k, nil
}

func parseAuthorizedKeys(data []byte) ([]ssh.PublicKey, error) {
	var keys []ssh.PublicKey
	rest := data
	for len(bytes.TrimSpace(rest)) > 0 {
		key, _, _, next, err := ssh.ParseAuthorizedKey(rest)
		if err != nil {
			return nil, fmt.Errorf("not SSH public keys in authorized_keys format: %w", err)
		}
		keys = append(keys, key)
		rest = next
	}
	if len(keys) == 0 {
		return nil, errors.New("holds no SSH public key")
	}
	return keys, nil
}

// Fingerprints names the trusted keys: OpenPGP fingerprints (hex) and SSH
// SHA256 fingerprints.
func (k *KeyRing) Fingerprints() []string {
	var out []string
	for _, e := range k.pgp {
		out = append(out, pgpFingerprint(e.PrimaryKey.Fingerprint))
	}
	for _, key := range k.ssh {
		out = append(out, ssh.FingerprintSHA256(key))
	}
	return out
}

func pgpFingerprint(fp []byte) string { return strings.ToUpper(hex.EncodeToString(fp)) }

// trusted lists the trusted keys for a message.
func (k *KeyRing) trusted() string {
	return fmt.Sprintf("the keys of %s (%s)", k.From, strings.Join(k.Fingerprints(), ", "))
}
