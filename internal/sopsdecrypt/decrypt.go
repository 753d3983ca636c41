package sopsdecrypt

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/keys"
)

// ErrNoMatchingKey says that none of the keys decrypts a file's data key.
var ErrNoMatchingKey = errors.New("no age key matches a recipient of the file")

// decryptTree decrypts tree in place with the data key that one of k's
// identities recovers, and returns the MAC it computed over the values.
func (k *Keys) decryptTree(tree *sops.Tree) (mac string, err error) {
	defer func() {
		// Malformed input has made SOPS panic before (Flux recovers too).
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed SOPS data")
		}
	}()
	dataKey, err := k.dataKey(tree.Metadata)
	if err != nil {
		return "", err
	}
	mac, err = tree.Decrypt(dataKey, aes.NewCipher())
	if err != nil {
		return "", fmt.Errorf("decrypting the values: %w", redact(err))
	}
	return mac, nil
}

// checkMAC compares the MAC stored in the file with the one computed over
// its decrypted values: a value changed, added or removed after encryption
// fails it.
func (k *Keys) checkMAC(tree *sops.Tree, computed string) error {
	dataKey, err := k.dataKey(tree.Metadata)
	if err != nil {
		return err
	}
	stored, err := aes.NewCipher().Decrypt(tree.Metadata.MessageAuthenticationCode, dataKey, tree.Metadata.LastModified.Format(time.RFC3339))
	if err != nil || stored != computed {
		return fmt.Errorf("the file's MAC does not match its values: it was changed after it was encrypted")
	}
	return nil
}

// dataKey recovers the file's data key with the first identity that
// matches one of its age recipients. Key groups split with Shamir's scheme
// are not supported.
func (k *Keys) dataKey(m sops.Metadata) ([]byte, error) {
	if len(m.KeyGroups) != 1 {
		return nil, fmt.Errorf("the file has %d key groups: only files encrypted for one group (no Shamir secret sharing) are supported", len(m.KeyGroups))
	}
	var recipients, others []string
	for _, key := range m.KeyGroups[0] {
		ageKey, ok := key.(*sopsage.MasterKey)
		if !ok {
			others = append(others, key.TypeToIdentifier())
			continue
		}
		recipients = append(recipients, ageKey.Recipient)
		k.identities.ApplyToMasterKey(ageKey)
		if dataKey, err := ageKey.Decrypt(); err == nil {
			return dataKey, nil
		}
	}
	return nil, k.noMatch(recipients, others)
}

func (k *Keys) noMatch(recipients, others []string) error {
	msg := fmt.Sprintf("the file is encrypted for %s", orNone(recipients, "no age recipient"))
	if len(others) > 0 {
		msg += fmt.Sprintf(" and for keys of kinds %s, which are not supported", strings.Join(others, ", "))
	}
	return fmt.Errorf("%w: %s; %s holds the key of %s", ErrNoMatchingKey, msg, k.source, orNone(k.recipients, "no X25519 recipient"))
}

func orNone(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	return strings.Join(list, ", ")
}

// redact drops what SOPS quotes of a value from its error, keeping the
// message's start.
func redact(err error) error {
	msg, _, _ := strings.Cut(err.Error(), ":")
	return errors.New(msg)
}

// hasMarker tells whether data looks like a SOPS document in YAML or JSON.
func hasMarker(data []byte) bool {
	return bytes.Contains(data, []byte("sops")) &&
		(bytes.Contains(data, []byte("mac: ENC[")) || bytes.Contains(data, []byte(`"mac": "ENC[`)) || bytes.Contains(data, []byte(`"mac":"ENC[`)))
}

var _ keys.MasterKey = (*sopsage.MasterKey)(nil)
