package git

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/crypto/ssh"
)

// errUnsigned says an object carries no signature.
var errUnsigned = errors.New("it is not signed")

// verifyCommit checks the signature of a commit, given as its raw object.
func (k *KeyRing) verifyCommit(raw []byte) (string, error) {
	obj := rawObject(plumbing.CommitObject, raw)
	c := &object.Commit{}
	if err := c.Decode(obj); err != nil {
		return "", fmt.Errorf("reading the commit: %w", err)
	}
	payload := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(payload); err != nil {
		return "", err
	}
	return k.verify(c.PGPSignature, payload)
}

// verifyTag checks the signature of an annotated tag, given as its raw
// object.
func (k *KeyRing) verifyTag(raw []byte) (string, error) {
	obj := rawObject(plumbing.TagObject, raw)
	t := &object.Tag{}
	if err := t.Decode(obj); err != nil {
		return "", fmt.Errorf("reading the tag: %w", err)
	}
	payload := &plumbing.MemoryObject{}
	if err := t.EncodeWithoutSignature(payload); err != nil {
		return "", err
	}
	return k.verify(t.PGPSignature, payload)
}

func rawObject(t plumbing.ObjectType, raw []byte) *plumbing.MemoryObject {
	obj := &plumbing.MemoryObject{}
	obj.SetType(t)
	_, _ = obj.Write(raw)
	return obj
}

// verify checks an armored signature (OpenPGP or SSH) over payload and
// names the key that made it.
func (k *KeyRing) verify(signature string, payload *plumbing.MemoryObject) (string, error) {
	r, err := payload.Reader()
	if err != nil {
		return "", err
	}
	message, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	switch {
	case strings.TrimSpace(signature) == "":
		return "", errUnsigned
	case strings.Contains(signature, "-----BEGIN SSH SIGNATURE-----"):
		return k.verifySSH(signature, message)
	}
	return k.verifyOpenPGP(signature, message)
}

func (k *KeyRing) verifyOpenPGP(signature string, message []byte) (string, error) {
	issuer := pgpIssuer(signature)
	if len(k.pgp) == 0 {
		return "", fmt.Errorf("it is signed by OpenPGP key %s, and %s holds no OpenPGP key (*%s)", issuer, k.From, OpenPGPKeySuffix)
	}
	signer, err := openpgp.CheckArmoredDetachedSignature(k.pgp, bytes.NewReader(message), strings.NewReader(signature), nil)
	switch {
	case errors.Is(err, pgperrors.ErrUnknownIssuer):
		return "", fmt.Errorf("it is signed by OpenPGP key %s, which is not one of %s", issuer, k.trusted())
	case err != nil:
		return "", fmt.Errorf("its signature by OpenPGP key %s does not verify: %w", issuer, err)
	}
	return "OpenPGP key " + pgpFingerprint(signer.PrimaryKey.Fingerprint) + identityOf(signer), nil
}

// pgpIssuer names the key that made an armored OpenPGP signature: its
// fingerprint, else its key ID.
func pgpIssuer(signature string) string {
	block, err := armor.Decode(strings.NewReader(signature))
	if err != nil {
		return "(unreadable signature)"
	}
	p, err := packet.Read(block.Body)
	sig, ok := p.(*packet.Signature)
	if err != nil || !ok {
		return "(unreadable signature)"
	}
	switch {
	case len(sig.IssuerFingerprint) > 0:
		return pgpFingerprint(sig.IssuerFingerprint)
	case sig.IssuerKeyId != nil:
		return fmt.Sprintf("ID %016X", *sig.IssuerKeyId)
	}
	return "(no issuer)"
}

func identityOf(e *openpgp.Entity) string {
	for name := range e.Identities {
		return " (" + name + ")"
	}
	return ""
}

// sshSigNamespace is the namespace git signs commits and tags in.
const sshSigNamespace = "git"

// sshSignature is the blob of an SSH signature (OpenSSH's PROTOCOL.sshsig),
// after its "SSHSIG" preamble.
type sshSignature struct {
	Version       uint32
	PublicKey     []byte
	Namespace     string
	Reserved      string
	HashAlgorithm string
	Signature     []byte
}

// sshSigned is what an SSH signature signs.
type sshSigned struct {
	Namespace     string
	Reserved      string
	HashAlgorithm string
	Hash          []byte
}

const sshSigMagic = "SSHSIG"

func (k *KeyRing) verifySSH(signature string, message []byte) (string, error) {
	block, _ := pem.Decode([]byte(signature))
	if block == nil || block.Type != "SSH SIGNATURE" || !bytes.HasPrefix(block.Bytes, []byte(sshSigMagic)) {
		return "", errors.New("its SSH signature cannot be read")
	}
	var sig sshSignature
	if err := ssh.Unmarshal(block.Bytes[len(sshSigMagic):], &sig); err != nil {
		return "", fmt.Errorf("its SSH signature cannot be read: %w", err)
	}
	signer, err := ssh.ParsePublicKey(sig.PublicKey)
	if err != nil {
		return "", fmt.Errorf("its SSH signature names no key it can read: %w", err)
	}
	fp := ssh.FingerprintSHA256(signer)
	switch {
	case sig.Version != 1:
		return "", fmt.Errorf("its SSH signature by key %s has version %d, not 1", fp, sig.Version)
	case sig.Namespace != sshSigNamespace:
		return "", fmt.Errorf("its SSH signature by key %s is for namespace %q, not %q", fp, sig.Namespace, sshSigNamespace)
	case !k.trustsSSH(signer):
		if len(k.ssh) == 0 {
			return "", fmt.Errorf("it is signed by SSH key %s, and %s holds no SSH key (*%s)", fp, k.From, SSHKeySuffix)
		}
		return "", fmt.Errorf("it is signed by SSH key %s, which is not one of %s", fp, k.trusted())
	}
	var h hash.Hash
	switch sig.HashAlgorithm {
	case "sha256":
		h = sha256.New()
	case "sha512":
		h = sha512.New()
	default:
		return "", fmt.Errorf("its SSH signature by key %s uses hash %q (want sha256 or sha512)", fp, sig.HashAlgorithm)
	}
	h.Write(message)
	signed := append([]byte(sshSigMagic), ssh.Marshal(sshSigned{Namespace: sig.Namespace, Reserved: sig.Reserved, HashAlgorithm: sig.HashAlgorithm, Hash: h.Sum(nil)})...)
	var s ssh.Signature
	if err := ssh.Unmarshal(sig.Signature, &s); err != nil {
		return "", fmt.Errorf("its SSH signature by key %s cannot be read: %w", fp, err)
	}
	if signer.Type() == ssh.KeyAlgoRSA && s.Format != ssh.KeyAlgoRSASHA256 && s.Format != ssh.KeyAlgoRSASHA512 {
		// As OpenSSH's sshsig: an RSA signature over SHA-1 is refused.
		return "", fmt.Errorf("its SSH signature by key %s is %s, which OpenSSH refuses: an RSA key signs with rsa-sha2-512 or rsa-sha2-256", fp, s.Format)
	}
	if err := signer.Verify(signed, &s); err != nil {
		return "", fmt.Errorf("its SSH signature by key %s does not verify: %w", fp, err)
	}
	return "SSH key " + fp, nil
}

func (k *KeyRing) trustsSSH(key ssh.PublicKey) bool {
	for _, t := range k.ssh {
		if bytes.Equal(t.Marshal(), key.Marshal()) {
			return true
		}
	}
	return false
}
