package invariants

import (
	"sort"
	"strings"
	"unicode"
)

// minSecretToken is the length below which a word of a Secret's value is
// not looked for: shorter ones (a port, "true", a host name) appear in
// logs for other reasons.
const minSecretToken = 12

// SecretWords returns the words of a Secret's values that must never be
// seen outside it: each value whole, and its words (split at spaces,
// quotes, colons, commas and equals signs: the secrets inside a kubeconfig
// or a connection string), at least minSecretToken long.
func SecretWords(data map[string][]byte) []string {
	seen := map[string]bool{}
	for _, value := range data {
		text := string(value)
		words := strings.FieldsFunc(text, func(r rune) bool {
			return unicode.IsSpace(r) || strings.ContainsRune(`"':,=`, r)
		})
		for _, w := range append(words, strings.TrimSpace(text)) {
			if len(w) >= minSecretToken {
				seen[w] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for w := range seen {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// Secrets checks that no secret word appears in any of texts (by name: an
// operator's log, the database's log, the Events, the statuses).
func Secrets(words []string, texts map[string]string) []Violation {
	var out []Violation
	for name, text := range texts {
		for _, w := range words {
			if i := strings.Index(text, w); i >= 0 {
				out = append(out, Violation{Invariant: "secrets", Object: name,
					Message: "holds a Secret's value (" + redacted(w) + ") in: " + excerpt(text, i, len(w))})
			}
		}
	}
	return out
}

// redacted names a secret word without giving it away.
func redacted(w string) string { return w[:2] + strings.Repeat("*", len(w)-2) }

// excerpt is the line of text around the match, the match redacted.
func excerpt(text string, i, n int) string {
	start := strings.LastIndexByte(text[:i], '\n') + 1
	end := strings.IndexByte(text[i:], '\n')
	if end < 0 {
		end = len(text) - i
	}
	line := text[start:i] + "<secret>" + text[i+n:i+end]
	if len(line) > 300 {
		line = line[:300] + "…"
	}
	return line
}
