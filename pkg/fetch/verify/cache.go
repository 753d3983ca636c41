package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"

	"k8s.io/utils/lru"
)

// DefaultCacheSize is how many verified digests a Cache of NewCache(0)
// remembers.
const DefaultCacheSize = 1024

// Cache remembers verified charts: by provider, digest and the fingerprint
// of the key material, the message of the verification. It is safe for
// concurrent use; a nil *Cache remembers nothing.
type Cache struct {
	verified *lru.Cache
}

// NewCache returns a Cache of size entries (DefaultCacheSize if size <= 0),
// the least recently used going first.
func NewCache(size int) *Cache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	return &Cache{verified: lru.New(size)}
}

func (c *Cache) get(key string) (string, bool) {
	if c == nil {
		return "", false
	}
	v, ok := c.verified.Get(key)
	if !ok {
		return "", false
	}
	return v.(string), true
}

func (c *Cache) add(key, message string) {
	if c != nil {
		c.verified.Add(key, message)
	}
}

// cacheKey is the key of a verification of digest by provider with the
// key material whose fingerprint is keys.
func cacheKey(provider, digest, keys string) string {
	return provider + "\x00" + digest + "\x00" + keys
}

// fingerprint identifies the key material of named keys: names and
// contents, whatever their order.
func fingerprint(keys map[string][]byte) string {
	names := make([]string, 0, len(keys))
	for name := range keys {
		names = append(names, name)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write(keys[name])
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
