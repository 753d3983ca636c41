package sopsdecrypt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"filippo.io/age"
	"filippo.io/age/armor"
)

// ErrNoMatchingKey says that none of the keys decrypts a file's data key.
var ErrNoMatchingKey = errors.New("no age key matches a recipient of the file")

// dataKeySize is the size of the AES-256 key SOPS encrypts values with.
const dataKeySize = 32

// dataKey recovers the file's data key with the first identity that
// matches one of its age recipients.
func (k *Keys) dataKey(m *metadata) ([]byte, error) {
	group, err := m.group()
	if err != nil {
		return nil, err
	}
	var recipients []string
	for _, key := range group.Age {
		recipients = append(recipients, key.Recipient)
		if dataKey, err := k.decryptDataKey(key.Enc); err == nil {
			return dataKey, nil
		}
	}
	return nil, k.noMatch(recipients, group.unsupported())
}

// decryptDataKey decrypts one armored age file holding the data key.
func (k *Keys) decryptDataKey(enc string) ([]byte, error) {
	r, err := age.Decrypt(armor.NewReader(strings.NewReader(enc)), k.identities...)
	if err != nil {
		return nil, err
	}
	var key bytes.Buffer
	if _, err := io.Copy(&key, io.LimitReader(r, dataKeySize+1)); err != nil {
		return nil, err
	}
	if key.Len() != dataKeySize {
		return nil, fmt.Errorf("the data key has %d bytes, not %d", key.Len(), dataKeySize)
	}
	return key.Bytes(), nil
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
