package verify

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// Providers of verification.
const (
	// Cosign verifies a chart of an OCI registry with cosign public keys.
	Cosign = "cosign"
	// Helm verifies a chart of a Helm repository with its provenance file
	// and PGP keyrings.
	Helm = "helm"
)

// suffixes are the endings of the key names each provider reads.
var suffixes = map[string]string{Cosign: ".pub", Helm: ".gpg"}

// New returns the Verifier of provider with the keys of a Secret's data
// (secret names it in messages): for cosign every key named *.pub (PEM
// public keys), for helm every key named *.gpg (PGP keyrings). A Secret
// without such a key is an error that names the keys it has.
func New(provider, secret string, data map[string][]byte, cache *Cache) (fetch.Verifier, error) {
	suffix, ok := suffixes[provider]
	if !ok {
		return nil, fmt.Errorf("verification provider %q: want %s or %s", provider, Cosign, Helm)
	}
	keys := map[string][]byte{}
	for name, value := range data {
		if strings.HasSuffix(name, suffix) {
			keys[name] = value
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no key named *%s in Secret %s: %s reads only those (the Secret's keys: %s)", suffix, secret, provider, keyNames(data))
	}
	if provider == Cosign {
		return NewCosign(keys, cache)
	}
	return NewHelm(keys, cache)
}

// keyNames lists the names of data's keys, sorted, or says there are none.
func keyNames(data map[string][]byte) string {
	if len(data) == 0 {
		return "none"
	}
	names := make([]string, 0, len(data))
	for name := range data {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
