package sopsdecrypt

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// metadataKey is the key of the SOPS metadata in an encrypted document.
const metadataKey = "sops"

// defaultUnencryptedSuffix is the rule of a file that names none.
const defaultUnencryptedSuffix = "_unencrypted"

// metadata is the `sops` entry of an encrypted file, as SOPS 3 writes it.
// Keys in one group are written at its top level; more groups (Shamir's
// secret sharing) under key_groups.
type metadata struct {
	keyGroup                `yaml:",inline"`
	KeyGroups               []keyGroup `json:"key_groups" yaml:"key_groups"`
	ShamirThreshold         int        `json:"shamir_threshold" yaml:"shamir_threshold"`
	LastModified            string     `json:"lastmodified" yaml:"lastmodified"`
	MAC                     string     `json:"mac" yaml:"mac"`
	UnencryptedSuffix       string     `json:"unencrypted_suffix" yaml:"unencrypted_suffix"`
	EncryptedSuffix         string     `json:"encrypted_suffix" yaml:"encrypted_suffix"`
	UnencryptedRegex        string     `json:"unencrypted_regex" yaml:"unencrypted_regex"`
	EncryptedRegex          string     `json:"encrypted_regex" yaml:"encrypted_regex"`
	UnencryptedCommentRegex string     `json:"unencrypted_comment_regex" yaml:"unencrypted_comment_regex"`
	EncryptedCommentRegex   string     `json:"encrypted_comment_regex" yaml:"encrypted_comment_regex"`
	MACOnlyEncrypted        bool       `json:"mac_only_encrypted" yaml:"mac_only_encrypted"`
}

// keyGroup holds the encrypted data key once per master key. Only age
// keys are read; the others are counted to name them in an error.
type keyGroup struct {
	Age     []ageKey `json:"age" yaml:"age"`
	PGP     []any    `json:"pgp" yaml:"pgp"`
	KMS     []any    `json:"kms" yaml:"kms"`
	GCPKMS  []any    `json:"gcp_kms" yaml:"gcp_kms"`
	HCKMS   []any    `json:"hckms" yaml:"hckms"`
	AzureKV []any    `json:"azure_kv" yaml:"azure_kv"`
	Vault   []any    `json:"hc_vault" yaml:"hc_vault"`
}

type ageKey struct {
	Recipient string `json:"recipient" yaml:"recipient"`
	Enc       string `json:"enc" yaml:"enc"`
}

// unsupported names the kinds of the group's keys other than age, once
// per key, as SOPS names them in a file.
func (g keyGroup) unsupported() []string {
	var out []string
	for _, kind := range []struct {
		name string
		keys []any
	}{{"pgp", g.PGP}, {"kms", g.KMS}, {"gcp_kms", g.GCPKMS}, {"hckms", g.HCKMS}, {"azure_kv", g.AzureKV}, {"hc_vault", g.Vault}} {
		for range kind.keys {
			out = append(out, kind.name)
		}
	}
	return out
}

// metadataFromObject reads the `sops` entry of a decoded object.
func metadataFromObject(obj map[string]any) (*metadata, error) {
	raw, ok := obj[metadataKey].(map[string]any)
	if !ok {
		return nil, errors.New("no sops entry that is a mapping")
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	m := &metadata{}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("the sops entry: %w", err)
	}
	return m, nil
}

// group is the one key group of the file.
func (m *metadata) group() (keyGroup, error) {
	if len(m.KeyGroups) == 0 {
		return m.keyGroup, nil
	}
	if len(m.KeyGroups) == 1 {
		return m.KeyGroups[0], nil
	}
	return keyGroup{}, fmt.Errorf("the file has %d key groups: only files encrypted for one group (no Shamir secret sharing) are supported", len(m.KeyGroups))
}

// macData is the additional data the MAC was encrypted with: the time of
// the last change, in RFC 3339 to the second.
func (m *metadata) macData() (string, error) {
	t, err := time.Parse(time.RFC3339, m.LastModified)
	if err != nil {
		return "", fmt.Errorf("lastmodified %q is not an RFC 3339 time", m.LastModified)
	}
	return t.Format(time.RFC3339), nil
}

// rules decide, from a value's path, whether SOPS encrypted it.
type rules struct {
	unencryptedSuffix, encryptedSuffix string
	unencryptedRegex, encryptedRegex   *regexp.Regexp
	// byForm: a comment rule decided, so a value is encrypted when it is
	// in ENC[...] form.
	byForm bool
}

// rules compiles the file's rule; a file names at most one.
func (m *metadata) rules() (rules, error) {
	set := 0
	for _, r := range []string{m.UnencryptedSuffix, m.EncryptedSuffix, m.UnencryptedRegex, m.EncryptedRegex, m.UnencryptedCommentRegex, m.EncryptedCommentRegex} {
		if r != "" {
			set++
		}
	}
	if set > 1 {
		return rules{}, errors.New("the file names more than one of encrypted_suffix, unencrypted_suffix, encrypted_regex, unencrypted_regex, encrypted_comment_regex and unencrypted_comment_regex")
	}
	r := rules{unencryptedSuffix: m.UnencryptedSuffix, encryptedSuffix: m.EncryptedSuffix,
		byForm: m.UnencryptedCommentRegex != "" || m.EncryptedCommentRegex != ""}
	if set == 0 {
		r.unencryptedSuffix = defaultUnencryptedSuffix
	}
	var err error
	if r.unencryptedRegex, err = compileRule("unencrypted_regex", m.UnencryptedRegex); err != nil {
		return rules{}, err
	}
	if r.encryptedRegex, err = compileRule("encrypted_regex", m.EncryptedRegex); err != nil {
		return rules{}, err
	}
	return r, nil
}

func compileRule(name, expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", name, expr, err)
	}
	return re, nil
}

// encrypted tells whether SOPS encrypted the value at path (the keys from
// the document's root; a list adds none).
func (r rules) encrypted(path []string, value any) bool {
	if r.byForm {
		s, ok := value.(string)
		return ok && isEncValue(s)
	}
	switch {
	case r.unencryptedSuffix != "":
		return !anyKey(path, func(k string) bool { return strings.HasSuffix(k, r.unencryptedSuffix) })
	case r.encryptedSuffix != "":
		return anyKey(path, func(k string) bool { return strings.HasSuffix(k, r.encryptedSuffix) })
	case r.unencryptedRegex != nil:
		return !anyKey(path, r.unencryptedRegex.MatchString)
	case r.encryptedRegex != nil:
		return anyKey(path, r.encryptedRegex.MatchString)
	}
	return true
}

func anyKey(path []string, match func(string) bool) bool {
	for _, k := range path {
		if match(k) {
			return true
		}
	}
	return false
}
