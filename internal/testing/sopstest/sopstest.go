package sopstest

import (
	"crypto/rand"
	"fmt"
	"strings"
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
	return EncryptWith(plain, recipient, Rules{EncryptedRegex: encryptedRegex})
}

// Rules say which values are encrypted and what the MAC covers, as the
// flags of sops --encrypt of the same names do; at most one of the
// strings is set.
type Rules struct {
	EncryptedRegex, UnencryptedRegex, EncryptedSuffix, UnencryptedSuffix string
	EncryptedCommentRegex, UnencryptedCommentRegex                       string
	MACOnlyEncrypted                                                     bool
}

// EncryptWith encrypts the values of a YAML document for recipient by rules.
func EncryptWith(plain []byte, recipient string, rules Rules) ([]byte, error) {
	if rules == (Rules{}) || rules == (Rules{MACOnlyEncrypted: true}) {
		rules.UnencryptedSuffix = "_unencrypted" // as sops --encrypt does without a rule
	}
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
		KeyGroups: []sops.KeyGroup{{key}}, EncryptedRegex: rules.EncryptedRegex, UnencryptedRegex: rules.UnencryptedRegex,
		EncryptedSuffix: rules.EncryptedSuffix, UnencryptedSuffix: rules.UnencryptedSuffix,
		EncryptedCommentRegex: rules.EncryptedCommentRegex, UnencryptedCommentRegex: rules.UnencryptedCommentRegex,
		MACOnlyEncrypted: rules.MACOnlyEncrypted,
		Version:          version.Version, LastModified: time.Now().UTC().Truncate(time.Second),
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

// Decrypt decrypts a YAML document with SOPS's own module, the reference
// the package under test is compared with.
func Decrypt(encrypted []byte, identity string) ([]byte, error) {
	store := sopsyaml.NewStore(&config.YAMLStoreConfig{})
	tree, err := store.LoadEncryptedFile(encrypted)
	if err != nil {
		return nil, err
	}
	ids, err := age.ParseIdentities(strings.NewReader(identity))
	if err != nil {
		return nil, err
	}
	key, ok := tree.Metadata.KeyGroups[0][0].(*sopsage.MasterKey)
	if !ok {
		return nil, fmt.Errorf("the first key is not an age key")
	}
	sopsage.ParsedIdentities(ids).ApplyToMasterKey(key)
	dataKey, err := key.Decrypt()
	if err != nil {
		return nil, err
	}
	cipher := aes.NewCipher()
	mac, err := tree.Decrypt(dataKey, cipher)
	if err != nil {
		return nil, err
	}
	stored, err := cipher.Decrypt(tree.Metadata.MessageAuthenticationCode, dataKey, tree.Metadata.LastModified.Format(time.RFC3339))
	if err != nil || stored != mac {
		return nil, fmt.Errorf("MAC mismatch")
	}
	return store.EmitPlainFile(tree.Branches)
}
