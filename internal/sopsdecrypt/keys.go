package sopsdecrypt

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"filippo.io/age"
)

// KeySuffix is the suffix of the Secret keys that hold age identities.
const KeySuffix = ".agekey"

// Keys are age identities that decrypt SOPS files, and where they came
// from, for messages.
type Keys struct {
	identities []age.Identity
	recipients []string
	source     string
}

// ParseKeys parses age identities (AGE-SECRET-KEY-1..., one per line;
// blank lines and # comments are skipped); source says where they come
// from in messages. An identity that does not parse is an error that names
// the source, never the key.
func ParseKeys(source string, identities ...string) (*Keys, error) {
	k := &Keys{source: source}
	for _, text := range identities {
		parsed, err := age.ParseIdentities(strings.NewReader(text))
		if err != nil {
			return nil, fmt.Errorf("%s: not age identities (AGE-SECRET-KEY-1..., as age-keygen writes them)", source)
		}
		for _, id := range parsed {
			k.identities = append(k.identities, id)
			if x, ok := id.(*age.X25519Identity); ok {
				k.recipients = append(k.recipients, x.Recipient().String())
			}
		}
	}
	if len(k.identities) == 0 {
		return nil, fmt.Errorf("%s holds no age identity", source)
	}
	return k, nil
}

// KeysFromSecret parses the keys of a Secret's data that end in .agekey.
// A Secret without such a key is an error that lists the keys it has, as
// a key named otherwise (age.key) is ignored.
func KeysFromSecret(secretName string, data map[string][]byte) (*Keys, error) {
	var texts, used []string
	for _, key := range slices.Sorted(maps.Keys(data)) {
		if strings.HasSuffix(key, KeySuffix) {
			texts = append(texts, string(data[key]))
			used = append(used, key)
		}
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("Secret %s has no key ending in %s (it has: %s); keys named otherwise, such as age.key, are ignored", secretName, KeySuffix, keyNames(data))
	}
	return ParseKeys(fmt.Sprintf("Secret %s (%s)", secretName, strings.Join(used, ", ")), texts...)
}

// Recipients are the public keys of the identities.
func (k *Keys) Recipients() []string { return slices.Clone(k.recipients) }

// Source says where the keys came from.
func (k *Keys) Source() string { return k.source }

func keyNames(data map[string][]byte) string {
	if len(data) == 0 {
		return "no keys"
	}
	return strings.Join(slices.Sorted(maps.Keys(data)), ", ")
}
