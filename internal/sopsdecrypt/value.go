package sopsdecrypt

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// encValue is the form of an encrypted value:
// ENC[AES256_GCM,data:<base64>,iv:<base64>,tag:<base64>,type:<type>].
var encValue = regexp.MustCompile(`^ENC\[AES256_GCM,data:(.+),iv:(.+),tag:(.+),type:(.+)\]`)

func isEncValue(s string) bool { return strings.HasPrefix(s, "ENC[AES256_GCM,") }

// pathData is the additional data SOPS seals a value with: its path,
// joined with ":" and ended by one, so a value moved to another key does
// not decrypt.
func pathData(path []string) string { return strings.Join(path, ":") + ":" }

// decryptValue decrypts one value with the data key and the additional
// data it was sealed with. The result has the type SOPS recorded: string,
// int, float64, bool, []byte or time.Time.
func decryptValue(value string, dataKey []byte, additional string) (any, error) {
	if value == "" {
		return "", nil // SOPS leaves an empty value as it is
	}
	m := encValue.FindStringSubmatch(value)
	if m == nil {
		return nil, errors.New("not in SOPS's ENC[AES256_GCM,...] form")
	}
	parts := make([][]byte, 3)
	for i, name := range []string{"data", "iv", "tag"} {
		var err error
		if parts[i], err = base64.StdEncoding.DecodeString(m[i+1]); err != nil {
			return nil, fmt.Errorf("its %s is not base64", name)
		}
	}
	data, iv, tag := parts[0], parts[1], parts[2]
	block, err := aes.NewCipher(dataKey)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCMWithNonceSize(block, len(iv))
	if err != nil {
		return nil, fmt.Errorf("its iv: %w", err)
	}
	plain, err := gcm.Open(nil, iv, append(data, tag...), []byte(additional))
	if err != nil {
		return nil, errors.New("it does not decrypt with the file's data key here (changed or moved after encryption)")
	}
	return typed(plain, m[4])
}

// typed turns decrypted bytes into a value of the type SOPS recorded.
func typed(plain []byte, kind string) (any, error) {
	text := string(plain)
	var (
		out any
		err error
	)
	switch kind {
	case "str":
		out = text
	case "int":
		out, err = strconv.Atoi(text)
	case "float":
		out, err = strconv.ParseFloat(text, 64)
	case "bool":
		out, err = strconv.ParseBool(text)
	case "bytes":
		out = plain
	case "time":
		var t time.Time
		err = t.UnmarshalText(plain)
		out = t
	default:
		return nil, fmt.Errorf("its type %q is not one SOPS writes", kind)
	}
	if err != nil {
		return nil, fmt.Errorf("it does not hold a %s", kind)
	}
	return out, nil
}

// macBytes is a value as SOPS hashes it into the MAC.
func macBytes(v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return []byte(v), nil
	case int:
		return []byte(strconv.Itoa(v)), nil
	case int64:
		return []byte(strconv.FormatInt(v, 10)), nil
	case float64:
		return []byte(strconv.FormatFloat(v, 'f', -1, 64)), nil
	case bool:
		if v {
			return []byte("True"), nil
		}
		return []byte("False"), nil
	case []byte:
		return v, nil
	case time.Time:
		return v.MarshalText()
	}
	return nil, fmt.Errorf("a value of type %T, which SOPS does not read", v)
}
