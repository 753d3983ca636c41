package dependency

import (
	"strings"
)

// referenceKind is how a dependency's repository field reaches its chart.
type referenceKind int

const (
	// vendored: no repository; the chart must be in charts/.
	vendored referenceKind = iota
	// local: file://path, a chart directory.
	local
	// named: @name or alias:name, a repository Access.Repositories names.
	named
	// remote: https://, http:// or oci://.
	remote
)

// reference is a dependency's repository field, parsed.
type reference struct {
	kind referenceKind
	// raw is the field as written.
	raw string
	// value is the path of file://, the name of @name, or the URL.
	value string
}

// parseReference parses a dependency's repository field; the error says
// which forms are understood.
func parseReference(raw string) (reference, bool) {
	switch {
	case raw == "":
		return reference{kind: vendored}, true
	case strings.HasPrefix(raw, "file://"):
		return reference{kind: local, raw: raw, value: strings.TrimPrefix(raw, "file://")}, true
	case strings.HasPrefix(raw, "@"):
		return reference{kind: named, raw: raw, value: strings.TrimPrefix(raw, "@")}, true
	case strings.HasPrefix(raw, "alias:"):
		return reference{kind: named, raw: raw, value: strings.TrimPrefix(raw, "alias:")}, true
	case isRemoteURL(raw):
		return reference{kind: remote, raw: raw, value: raw}, true
	}
	return reference{raw: raw}, false
}

// isRemoteURL reports whether url is https://, http:// or oci://.
func isRemoteURL(url string) bool {
	for _, scheme := range []string{"https://", "http://", "oci://"} {
		if strings.HasPrefix(url, scheme) && len(url) > len(scheme) {
			return true
		}
	}
	return false
}
