package verify

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// publicKey is a trusted cosign key: its name in the Secret, its
// fingerprint for messages, and its verifier.
type publicKey struct {
	name, fingerprint string
	verifier          signature.Verifier
}

func (k publicKey) String() string { return k.name + " (" + k.fingerprint + ")" }

// CosignVerifier verifies charts of OCI registries signed with cosign's key
// mode.
type CosignVerifier struct {
	keys        []publicKey
	fingerprint string
	cache       *Cache
}

// NewCosign returns a verifier that trusts keys (PEM public keys, by name);
// what it verifies it remembers in cache, which may be nil.
func NewCosign(keys map[string][]byte, cache *Cache) (*CosignVerifier, error) {
	v := &CosignVerifier{fingerprint: fingerprint(keys), cache: cache}
	for name, pem := range keys {
		key, err := parsePublicKey(name, pem)
		if err != nil {
			return nil, err
		}
		v.keys = append(v.keys, key)
	}
	if len(v.keys) == 0 {
		return nil, errors.New("cosign: no public key given")
	}
	sort.Slice(v.keys, func(i, j int) bool { return v.keys[i].name < v.keys[j].name })
	return v, nil
}

// parsePublicKey reads the PEM public key of a Secret's key name.
func parsePublicKey(name string, pem []byte) (publicKey, error) {
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(pem)
	if err != nil {
		return publicKey{}, fmt.Errorf("key %s: not a PEM public key: %w", name, err)
	}
	der, err := cryptoutils.MarshalPublicKeyToDER(pub)
	if err != nil {
		return publicKey{}, fmt.Errorf("key %s: %w", name, err)
	}
	verifier, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return publicKey{}, fmt.Errorf("key %s: %w", name, err)
	}
	sum := sha256.Sum256(der)
	return publicKey{name: name, fingerprint: "sha256:" + hex.EncodeToString(sum[:8]), verifier: verifier}, nil
}

// Verify looks for a signature of s.Digest that one of the keys verifies:
// Sigstore bundles among the manifest's referrers, then the tag
// sha256-<hex>.sig.
func (v *CosignVerifier) Verify(ctx context.Context, s fetch.Subject) (string, error) {
	key := cacheKey(Cosign, s.Digest, v.fingerprint)
	if message, ok := v.cache.get(key); ok {
		return message, nil
	}
	if s.Registry == nil {
		return "", fmt.Errorf("cosign verifies charts of OCI registries (oci://), and %s is not one", s.Source)
	}
	d, err := parseSHA256(s.Digest)
	if err != nil {
		return "", err
	}
	var tried attempts
	for _, find := range []func(context.Context, fetch.Subject, []byte) (string, error){v.verifyBundles, v.verifyTagSignature} {
		message, err := find(ctx, s, d)
		if err == nil {
			v.cache.add(key, message)
			return message, nil
		}
		tried = append(tried, err)
	}
	return "", fmt.Errorf("no cosign signature verified with %s: %w", v.keyList(), tried)
}

// keyList names the trusted keys for messages.
func (v *CosignVerifier) keyList() string {
	var b bytes.Buffer
	for i, k := range v.keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k.String())
	}
	return "key " + b.String()
}

// parseSHA256 returns the bytes of "sha256:<hex>".
func parseSHA256(digest string) ([]byte, error) {
	hexDigits, ok := bytes.CutPrefix([]byte(digest), []byte("sha256:"))
	d, err := hex.DecodeString(string(hexDigits))
	if !ok || err != nil || len(d) != sha256.Size {
		return nil, fmt.Errorf("digest %q: want sha256:<64 hex digits>", digest)
	}
	return d, nil
}

// attempts are the failures of each way of finding a signature.
type attempts []error

func (a attempts) Error() string {
	var b bytes.Buffer
	for i, err := range a {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

func (a attempts) Unwrap() []error { return a }
