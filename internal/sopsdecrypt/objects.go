package sopsdecrypt

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// IsEncrypted tells whether an object carries SOPS metadata with a MAC, as
// `sops --encrypt` leaves in a manifest.
func IsEncrypted(obj map[string]any) bool {
	mac, _, _ := unstructured.NestedString(obj, "sops", "mac")
	return mac != ""
}

// Encrypted returns the objects that carry SOPS metadata.
func Encrypted(objects []client.Object) []client.Object {
	var out []client.Object
	for _, o := range objects {
		if u, ok := o.(*unstructured.Unstructured); ok && IsEncrypted(u.Object) {
			out = append(out, u)
		}
	}
	return out
}

// DecryptObject returns obj with its values decrypted and its SOPS metadata
// removed. The MAC is not checked: the object is taken from a render, into
// which kustomize or the templates may have put fields of their own (a
// namespace, labels); each value is still authenticated by AES-GCM together
// with its path.
func (k *Keys) DecryptObject(obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	meta, err := metadataFromObject(obj.Object)
	if err != nil {
		return nil, fmt.Errorf("reading its SOPS metadata: %w", err)
	}
	d, err := k.decrypter(meta)
	if err != nil {
		return nil, err
	}
	d.asObject = true
	out := obj.DeepCopy()
	delete(out.Object, metadataKey)
	if _, err := d.walk(out.Object, nil); err != nil {
		return nil, fmt.Errorf("decrypting: %w", err)
	}
	return out, nil
}

// decrypter recovers the data key and compiles the rules of a file.
func (k *Keys) decrypter(meta *metadata) (*decrypter, error) {
	r, err := meta.rules()
	if err != nil {
		return nil, fmt.Errorf("reading its SOPS metadata: %w", err)
	}
	dataKey, err := k.dataKey(meta)
	if err != nil {
		return nil, err
	}
	return &decrypter{dataKey: dataKey, rules: r, macOnlyEncrypted: meta.MACOnlyEncrypted}, nil
}

// unstructuredValue turns a decrypted value into the type a decoded JSON
// object holds: int64 for int, a string for bytes and times.
func unstructuredValue(v any) (any, error) {
	switch v := v.(type) {
	case int:
		return int64(v), nil
	case []byte:
		return string(v), nil
	case time.Time:
		text, err := v.MarshalText()
		return string(text), err
	}
	return v, nil
}

// IsEncryptedDocument tells whether data looks like a SOPS-encrypted YAML
// or JSON document.
func IsEncryptedDocument(data []byte) bool { return hasMarker(data) }

// ErrNoKeys says that an object is encrypted and no keys were given.
var ErrNoKeys = errors.New("no age key was given")

// Objects returns objects with each one that carries SOPS metadata
// decrypted by keys (nil keys fail with ErrNoKeys); fail turns the error of
// an object into the one returned.
func Objects(keys *Keys, objects []client.Object, fail func(*unstructured.Unstructured, error) error) ([]client.Object, error) {
	out := make([]client.Object, len(objects))
	for i, obj := range objects {
		out[i] = obj
		u, ok := obj.(*unstructured.Unstructured)
		if !ok || !IsEncrypted(u.Object) {
			continue
		}
		if keys == nil {
			return nil, fail(u, ErrNoKeys)
		}
		plain, err := keys.DecryptObject(u)
		if err != nil {
			return nil, fail(u, err)
		}
		out[i] = plain
	}
	return out, nil
}
