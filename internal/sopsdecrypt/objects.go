package sopsdecrypt

import (
	"errors"
	"fmt"

	"github.com/getsops/sops/v3/config"
	sopsjson "github.com/getsops/sops/v3/stores/json"
	sopsyaml "github.com/getsops/sops/v3/stores/yaml"
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
	data, err := obj.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	store := sopsjson.NewStore(&config.JSONStoreConfig{})
	tree, err := store.LoadEncryptedFile(data)
	if err != nil {
		return nil, fmt.Errorf("reading its SOPS metadata: %w", redact(err))
	}
	if _, err := k.decryptTree(&tree); err != nil {
		return nil, err
	}
	plain, err := store.EmitPlainFile(tree.Branches)
	if err != nil {
		return nil, fmt.Errorf("encoding the decrypted object: %w", redact(err))
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(plain); err != nil {
		return nil, fmt.Errorf("decoding the decrypted object: %w", redact(err))
	}
	return out, nil
}

// IsEncryptedDocument tells whether data looks like a SOPS-encrypted YAML
// or JSON document.
func IsEncryptedDocument(data []byte) bool { return hasMarker(data) }

// DecryptDocument decrypts a SOPS-encrypted YAML (or JSON, which is YAML)
// document, such as a values file, checks its MAC, and returns it as YAML.
func (k *Keys) DecryptDocument(data []byte) ([]byte, error) {
	store := sopsyaml.NewStore(&config.YAMLStoreConfig{})
	tree, err := store.LoadEncryptedFile(data)
	if err != nil {
		return nil, fmt.Errorf("reading its SOPS metadata: %w", redact(err))
	}
	mac, err := k.decryptTree(&tree)
	if err != nil {
		return nil, err
	}
	if err := k.checkMAC(&tree, mac); err != nil {
		return nil, err
	}
	plain, err := store.EmitPlainFile(tree.Branches)
	if err != nil {
		return nil, fmt.Errorf("encoding the decrypted document: %w", redact(err))
	}
	return plain, nil
}

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
