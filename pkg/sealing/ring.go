package sealing

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// KeySize is the size of every key: AES-256.
const KeySize = 32

// format is the first byte of sealed data: the version of its layout
// (format, nonce, AES-GCM ciphertext with its tag).
const format byte = 1

// Ring is a set of keys by ID: the active one seals, any opens.
type Ring struct {
	active   string
	previous string
	keys     map[string][]byte
}

// New returns a ring of one new key, active.
func New() (*Ring, error) {
	id, key, err := newKey()
	if err != nil {
		return nil, err
	}
	return &Ring{active: id, keys: map[string][]byte{id: key}}, nil
}

// Rotated returns a ring whose active key is new, with r's active key as
// the previous one (for reading what it sealed) and every older key
// dropped: what only those keys opened can no longer be read.
func (r *Ring) Rotated() (*Ring, error) {
	id, key, err := newKey()
	if err != nil {
		return nil, err
	}
	out := &Ring{active: id, previous: r.active, keys: map[string][]byte{id: key}}
	out.keys[r.active] = r.keys[r.active]
	return out, nil
}

// Active is the ID of the key that seals.
func (r *Ring) Active() string { return r.active }

// Has tells whether r holds the key id.
func (r *Ring) Has(id string) bool {
	_, ok := r.keys[id]
	return ok
}

// IDs are the IDs of r's keys, sorted.
func (r *Ring) IDs() []string { return slices.Sorted(maps.Keys(r.keys)) }

// Seal encrypts plaintext with the active key, bound to aad, and returns
// the ID of that key with the sealed data.
func (r *Ring) Seal(aad, plaintext []byte) (string, []byte, error) {
	aead, err := gcm(r.keys[r.active])
	if err != nil {
		return "", nil, err
	}
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(plaintext)+aead.Overhead())
	out[0] = format
	if _, err := rand.Read(out[1:]); err != nil {
		return "", nil, fmt.Errorf("making a nonce: %w", err)
	}
	return r.active, aead.Seal(out, out[1:], plaintext, aad), nil
}

// UnknownKeyError says that data was sealed with a key the ring does not
// hold (any more): lost with its Secret, or dropped by two rotations.
type UnknownKeyError struct{ ID string }

func (e *UnknownKeyError) Error() string {
	if e.ID == "" {
		return "it names no key"
	}
	return fmt.Sprintf("its key %s is not among the keys held", e.ID)
}

// ErrNotAuthentic says that sealed data does not open with its key and
// additional data: it was changed, or sealed for another place.
var ErrNotAuthentic = errors.New("it does not open with its key: it was changed, or sealed for another place")

// Open decrypts what Seal returned with key id and the same aad.
func (r *Ring) Open(id string, aad, sealed []byte) ([]byte, error) {
	key, ok := r.keys[id]
	if !ok {
		return nil, &UnknownKeyError{ID: id}
	}
	aead, err := gcm(key)
	if err != nil {
		return nil, err
	}
	if len(sealed) < 1+aead.NonceSize()+aead.Overhead() || sealed[0] != format {
		return nil, ErrNotAuthentic
	}
	nonce, ciphertext := sealed[1:1+aead.NonceSize()], sealed[1+aead.NonceSize():]
	plain, err := aead.Open(nil, nonce, ciphertext, aad)
	if err != nil {
		return nil, ErrNotAuthentic
	}
	return plain, nil
}

// AAD joins the parts that name where sealed data is kept into additional
// data for Seal and Open: each part is length-prefixed, so no two lists of
// parts give the same bytes.
func AAD(parts ...string) []byte {
	var b strings.Builder
	for _, p := range parts {
		fmt.Fprintf(&b, "%d:%s;", len(p), p)
	}
	return []byte(b.String())
}

func gcm(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("the key: %w", err)
	}
	return cipher.NewGCM(block)
}

// newKey returns a new random key and its random ID.
func newKey() (string, []byte, error) {
	key := make([]byte, KeySize)
	id := make([]byte, 8)
	if _, err := rand.Read(key); err != nil {
		return "", nil, fmt.Errorf("making a key: %w", err)
	}
	if _, err := rand.Read(id); err != nil {
		return "", nil, fmt.Errorf("making a key ID: %w", err)
	}
	return hex.EncodeToString(id), key, nil
}
