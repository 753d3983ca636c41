package release

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// Key is a release signing key: an ECDSA P-256 private key, the kind
// `cosign generate-key-pair` makes. It signs with SHA-256, as cosign does.
type Key struct {
	private *ecdsa.PrivateKey
	hint    []byte
}

var _ sign.Keypair = (*Key)(nil)

// GenerateKey makes a key pair in cosign's files: the private key PEM
// encrypted with password (scrypt and NaCl secretbox, "ENCRYPTED SIGSTORE
// PRIVATE KEY", what cosign.key holds) and the public key PEM (cosign.pub).
func GenerateKey(password []byte) (private, public []byte, err error) {
	if password == nil {
		password = []byte{}
	}
	return cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), cryptoutils.StaticPasswordFunc(password))
}

// LoadKey reads a private key PEM: cosign's encrypted form (opened with
// password, which may be empty), or an unencrypted PKCS #8 or EC key.
func LoadKey(privatePEM, password []byte) (*Key, error) {
	if password == nil {
		password = []byte{}
	}
	private, err := cryptoutils.UnmarshalPEMToPrivateKey(privatePEM, cryptoutils.StaticPasswordFunc(password))
	if err != nil {
		return nil, fmt.Errorf("reading the signing key (is COSIGN_PASSWORD right?): %w", err)
	}
	ec, ok := private.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, fmt.Errorf("the signing key is a %T; release signing takes an ECDSA P-256 key (cosign generate-key-pair)", private)
	}
	der, err := x509.MarshalPKIXPublicKey(ec.Public())
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(der)
	return &Key{private: ec, hint: []byte(base64.StdEncoding.EncodeToString(sum[:]))}, nil
}

// PublicKeyPEM is the public key, as cosign.pub holds it.
func (k *Key) PublicKeyPEM() ([]byte, error) {
	return cryptoutils.MarshalPublicKeyToPEM(k.private.Public())
}

// GetHashAlgorithm is SHA-256.
func (k *Key) GetHashAlgorithm() protocommon.HashAlgorithm {
	return protocommon.HashAlgorithm_SHA2_256
}

// GetSigningAlgorithm is ECDSA P-256 with SHA-256.
func (k *Key) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256
}

// GetHint names the key in a bundle: the base64 SHA-256 of its public key.
func (k *Key) GetHint() []byte { return k.hint }

// GetKeyAlgorithm is ECDSA.
func (k *Key) GetKeyAlgorithm() string { return "ECDSA" }

// GetPublicKey is the public half.
func (k *Key) GetPublicKey() crypto.PublicKey { return k.private.Public() }

// GetPublicKeyPem is PublicKeyPEM as a string, for sigstore-go.
func (k *Key) GetPublicKeyPem() (string, error) {
	pem, err := k.PublicKeyPEM()
	return string(pem), err
}

// SignData signs the SHA-256 of data; it returns the signature and the
// digest signed.
func (k *Key) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	if k == nil || k.private == nil {
		return nil, nil, errors.New("no signing key")
	}
	digest := sha256.Sum256(data)
	signature, err := ecdsa.SignASN1(rand.Reader, k.private, digest[:])
	if err != nil {
		return nil, nil, fmt.Errorf("signing: %w", err)
	}
	return signature, digest[:], nil
}
