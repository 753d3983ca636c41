package input

import (
	"errors"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/sopsdecrypt"
)

// ageKeys reads the age identities of --sops-age-key once; nil without
// the flag.
func (o *Options) ageKeys() (*sopsdecrypt.Keys, error) {
	if o.sopsAgeKey == "" || o.keys != nil {
		return o.keys, nil
	}
	data, err := os.ReadFile(o.sopsAgeKey)
	if err != nil {
		return nil, fmt.Errorf("--sops-age-key: %w", err)
	}
	keys, err := sopsdecrypt.ParseKeys("--sops-age-key "+o.sopsAgeKey, string(data))
	if err != nil {
		return nil, err
	}
	o.keys = keys
	return keys, nil
}

// decryptValuesFile decrypts a -f file that SOPS encrypted.
func (o *Options) decryptValuesFile(file string, data []byte) ([]byte, error) {
	if !sopsdecrypt.IsEncryptedDocument(data) {
		return data, nil
	}
	keys, err := o.ageKeys()
	if err != nil {
		return nil, err
	}
	if keys == nil {
		return nil, fmt.Errorf("values file %s is encrypted with SOPS: give its age key with --sops-age-key FILE", file)
	}
	plain, err := keys.DecryptDocument(data)
	if err != nil {
		return nil, fmt.Errorf("values file %s: %w", file, err)
	}
	return plain, nil
}

// decryptObjects decrypts the rendered objects that carry SOPS metadata.
func (o *Options) decryptObjects(dir string, objects []client.Object) ([]client.Object, error) {
	if len(sopsdecrypt.Encrypted(objects)) == 0 {
		return objects, nil
	}
	keys, err := o.ageKeys()
	if err != nil {
		return nil, err
	}
	return sopsdecrypt.Objects(keys, objects, func(u *unstructured.Unstructured, err error) error {
		if errors.Is(err, sopsdecrypt.ErrNoKeys) {
			return fmt.Errorf("%s %s of %s is encrypted with SOPS: give its age key with --sops-age-key FILE", u.GetKind(), u.GetName(), dir)
		}
		return fmt.Errorf("%s %s of %s: %w", u.GetKind(), u.GetName(), dir, err)
	})
}
