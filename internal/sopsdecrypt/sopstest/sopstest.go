// Package sopstest encrypts YAML documents as `sops --encrypt --age` does,
// with SOPS's own Go module, for tests: keys are made by the tests, nothing
// is read from the environment.
package sopstest

import (
	"crypto/rand"
	"fmt"
	"time"

	"filippo.io/age"
	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/config"
	sopsyaml "github.com/getsops/sops/v3/stores/yaml"
	"github.com/getsops/sops/v3/version"
)

// NewKey returns a new age identity (AGE-SECRET-KEY-1...) and its recipient.
func NewKey() (identity, recipient string, err error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return "", "", err
	}
	return id.String(), id.Recipient().String(), nil
}

// Encrypt encrypts the values of a YAML document for recipient; with
// encryptedRegex (such as "^(data|stringData)$") only the values under
// matching keys, as sops --encrypted-regex does.
func Encrypt(plain []byte, recipient, encryptedRegex string) ([]byte, error) {
	store := sopsyaml.NewStore(&config.YAMLStoreConfig{})
	branches, err := store.LoadPlainFile(plain)
	if err != nil {
		return nil, fmt.Errorf("reading the document: %w", err)
	}
	key, err := sopsage.MasterKeyFromRecipient(recipient)
	if err != nil {
		return nil, err
	}
	dataKey := make([]byte, 32)
	if _, err := rand.Read(dataKey); err != nil {
		return nil, err
	}
	if err := key.Encrypt(dataKey); err != nil {
		return nil, err
	}
	tree := sops.Tree{Branches: branches, Metadata: sops.Metadata{
		KeyGroups: []sops.KeyGroup{{key}}, EncryptedRegex: encryptedRegex,
		Version: version.Version, LastModified: time.Now().UTC().Truncate(time.Second),
	}}
	cipher := aes.NewCipher()
	mac, err := tree.Encrypt(dataKey, cipher)
	if err != nil {
		return nil, err
	}
	tree.Metadata.MessageAuthenticationCode, err = cipher.Encrypt(mac, dataKey, tree.Metadata.LastModified.Format(time.RFC3339))
	if err != nil {
		return nil, err
	}
	return store.EmitEncryptedFile(tree)
}
