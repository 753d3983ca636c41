package session

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// MinKeyBytes is the shortest session key a Codec takes.
const MinKeyBytes = 32

var (
	// ErrInvalid is a cookie the page did not seal, or one changed since.
	ErrInvalid = errors.New("the session cookie is not valid")
	// ErrExpired is a cookie past its expiry.
	ErrExpired = errors.New("the session has expired")
)

// Codec seals and opens cookie values under one key.
type Codec struct {
	aead cipher.AEAD
	csrf []byte
	now  func() time.Time
}

// NewCodec returns a Codec of key, at least MinKeyBytes of random bytes.
func NewCodec(key []byte) (*Codec, error) {
	if len(key) < MinKeyBytes {
		return nil, fmt.Errorf("a session key needs at least %d bytes, this one has %d", MinKeyBytes, len(key))
	}
	block, err := aes.NewCipher(derive(key, "wavekit dashboard session cookie"))
	if err != nil {
		return nil, fmt.Errorf("the session cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("the session cipher: %w", err)
	}
	return &Codec{aead: aead, csrf: derive(key, "wavekit dashboard csrf token"), now: time.Now}, nil
}

// RandomKey returns a new random session key, for a page that was given
// none: its sessions end when it stops.
func RandomKey() []byte {
	key := make([]byte, MinKeyBytes)
	if _, err := rand.Read(key); err != nil {
		panic(fmt.Sprintf("reading random bytes: %v", err))
	}
	return key
}

// derive is the HMAC of purpose under key: one key for each use.
func derive(key []byte, purpose string) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(purpose))
	return mac.Sum(nil)
}

// envelope is what a cookie holds, before sealing.
type envelope struct {
	Expires int64           `json:"exp"`
	Value   json.RawMessage `json:"v"`
}

// Seal returns the value of the cookie name holding v until expires.
func (c *Codec) Seal(name string, v any, expires time.Time) (string, error) {
	value, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("sealing cookie %s: %w", name, err)
	}
	plain, err := json.Marshal(envelope{Expires: expires.Unix(), Value: value})
	if err != nil {
		return "", fmt.Errorf("sealing cookie %s: %w", name, err)
	}
	nonce := make([]byte, c.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("sealing cookie %s: %w", name, err)
	}
	sealed := c.aead.Seal(nonce, nonce, plain, []byte(name))
	return base64.RawURLEncoding.EncodeToString(sealed), nil
}

// Open reads the value of the cookie name into v: ErrInvalid if the page
// did not seal it for that name, ErrExpired past its expiry.
func (c *Codec) Open(name, cookie string, v any) error {
	sealed, err := base64.RawURLEncoding.DecodeString(cookie)
	if err != nil || len(sealed) < c.aead.NonceSize() {
		return ErrInvalid
	}
	nonce, ciphertext := sealed[:c.aead.NonceSize()], sealed[c.aead.NonceSize():]
	plain, err := c.aead.Open(nil, nonce, ciphertext, []byte(name))
	if err != nil {
		return ErrInvalid
	}
	var env envelope
	if err := json.Unmarshal(plain, &env); err != nil {
		return ErrInvalid
	}
	if !c.now().Before(time.Unix(env.Expires, 0)) {
		return ErrExpired
	}
	if err := json.Unmarshal(env.Value, v); err != nil {
		return ErrInvalid
	}
	return nil
}

// CSRFToken is the token the forms of the session id carry.
func (c *Codec) CSRFToken(id string) string {
	mac := hmac.New(sha256.New, c.csrf)
	mac.Write([]byte(id))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// CheckCSRF tells whether token is the CSRF token of the session id.
func (c *Codec) CheckCSRF(id, token string) bool {
	want := c.CSRFToken(id)
	return token != "" && subtle.ConstantTimeCompare([]byte(want), []byte(token)) == 1
}

// NewID returns a random session id.
func NewID() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("reading random bytes: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
