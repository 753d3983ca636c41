package fetch

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
)

// digest is a content digest, "<algorithm>:<hex>". Cache entries are named
// after one, so parseDigest admits nothing that is not a plain name.
type digest struct {
	algorithm, hex string
}

// digestAlgorithms are the algorithms a digest may use, with their sizes.
var digestAlgorithms = map[string]struct {
	size int
	hash func() hash.Hash
}{
	"sha256": {sha256.Size, sha256.New},
	"sha384": {sha512.Size384, sha512.New384},
	"sha512": {sha512.Size, sha512.New},
}

// parseDigest reads "sha256:<hex>" (or sha384, sha512).
func parseDigest(s string) (digest, error) {
	algorithm, hexDigits, ok := strings.Cut(s, ":")
	if !ok {
		return digest{}, fmt.Errorf("digest %q: want <algorithm>:<hex>", s)
	}
	alg, known := digestAlgorithms[algorithm]
	if !known {
		return digest{}, fmt.Errorf("digest %q: unsupported algorithm %q (want sha256, sha384 or sha512)", s, algorithm)
	}
	hexDigits = strings.ToLower(hexDigits)
	if raw, err := hex.DecodeString(hexDigits); err != nil || len(raw) != alg.size {
		return digest{}, fmt.Errorf("digest %q: want %d hex digits", s, 2*alg.size)
	}
	return digest{algorithm: algorithm, hex: hexDigits}, nil
}

// digestOf returns the digest of data with the given algorithm.
func digestOf(algorithm string, data []byte) digest {
	h := digestAlgorithms[algorithm].hash()
	h.Write(data)
	return digest{algorithm: algorithm, hex: hex.EncodeToString(h.Sum(nil))}
}

func (d digest) String() string { return d.algorithm + ":" + d.hex }

// newHash returns a hash computing digests like d.
func (d digest) newHash() hash.Hash { return digestAlgorithms[d.algorithm].hash() }

// sum returns the digest a hash made by newHash has computed.
func (d digest) sum(h hash.Hash) digest {
	return digest{algorithm: d.algorithm, hex: hex.EncodeToString(h.Sum(nil))}
}
