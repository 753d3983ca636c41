package sopsdecrypt

import (
	"fmt"
	"hash"
	"maps"
	"slices"
	"strings"
)

// item is one entry of a mapping, in the document's order.
type item struct {
	key   string
	value any
}

// branch is a mapping whose order is kept: the MAC hashes values in the
// order of the document.
type branch []item

// decrypter decrypts the values of one file and, for a document, hashes
// them in order into the MAC as SOPS does.
type decrypter struct {
	dataKey []byte
	rules   rules
	// mac is nil for an object, whose MAC is not checked.
	mac              hash.Hash
	macOnlyEncrypted bool
	// asObject gives decrypted values the types of a decoded object.
	asObject bool
}

// walk returns v with each value that the rules say is encrypted
// decrypted. A list adds nothing to the path; nil is neither decrypted
// nor hashed.
func (d *decrypter) walk(v any, path []string) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case branch:
		for i := range v {
			out, err := d.walk(v[i].value, append(slices.Clip(path), v[i].key))
			if err != nil {
				return nil, err
			}
			v[i].value = out
		}
		return v, nil
	case map[string]any:
		for _, key := range slices.Sorted(maps.Keys(v)) {
			out, err := d.walk(v[key], append(slices.Clip(path), key))
			if err != nil {
				return nil, err
			}
			v[key] = out
		}
		return v, nil
	case []any:
		for i := range v {
			out, err := d.walk(v[i], path)
			if err != nil {
				return nil, err
			}
			v[i] = out
		}
		return v, nil
	}
	return d.leaf(v, path)
}

// leaf decrypts one value if the rules say it is encrypted, and hashes it.
func (d *decrypter) leaf(v any, path []string) (any, error) {
	encrypted := d.rules.encrypted(path, v)
	if encrypted {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("the value at %s is a %T, not an encrypted value", strings.Join(path, "."), v)
		}
		plain, err := decryptValue(s, d.dataKey, pathData(path))
		if err == nil && d.asObject {
			plain, err = unstructuredValue(plain)
		}
		if err != nil {
			return nil, fmt.Errorf("the value at %s: %w", strings.Join(path, "."), err)
		}
		v = plain
	}
	if d.mac != nil && (encrypted || !d.macOnlyEncrypted) {
		b, err := macBytes(v)
		if err != nil {
			return nil, fmt.Errorf("the value at %s: %w", strings.Join(path, "."), err)
		}
		d.mac.Write(b)
	}
	return v, nil
}
