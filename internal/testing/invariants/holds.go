package invariants

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"strings"
)

// Holds tells whether data (a Secret's or a ConfigMap's value, an
// annotation) holds value: as it is, in base64 (without its padding), or
// within data's base64-decoded or gunzipped form, however deep — the forms
// a kept copy of a value takes.
func Holds(data []byte, value string) bool {
	encoded := strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(value)), "=")
	if bytes.Contains(data, []byte(value)) || bytes.Contains(data, []byte(encoded)) {
		return true
	}
	if decoded, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data))); err == nil && len(decoded) > 0 && Holds(decoded, value) {
		return true
	}
	if r, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
		if plain, err := io.ReadAll(io.LimitReader(r, 64<<20)); err == nil && Holds(plain, value) {
			return true
		}
	}
	return false
}
