package apirequest

import (
	"net/http"
	"strings"
)

// Verb names a request the way Kubernetes audit logs do.
func Verb(req *http.Request) string {
	switch req.Method {
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		if strings.HasPrefix(req.Header.Get("Content-Type"), "application/apply-patch") {
			return "apply"
		}
		return "patch"
	case http.MethodDelete:
		return "delete"
	case http.MethodGet:
		switch {
		case req.URL.Query().Get("watch") == "true":
			return "watch"
		case isCollection(req.URL.Path):
			return "list"
		}
		return "get"
	}
	return strings.ToLower(req.Method)
}

// Resource returns the resource (and subresource) a request path addresses,
// e.g. "configmaps", "deployments/status", "apis" for discovery.
func Resource(path string) string {
	parts := resourceParts(path)
	switch len(parts) {
	case 0:
		return "discovery"
	case 1, 2:
		return parts[0]
	}
	return parts[0] + "/" + parts[2]
}

// resourceParts returns [resource, name, subresource...] of a path.
func resourceParts(path string) []string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		segs = segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		segs = segs[3:]
	default:
		return nil
	}
	if len(segs) >= 2 && segs[0] == "namespaces" && len(segs) != 2 {
		segs = segs[2:]
	}
	return segs
}

func isCollection(path string) bool {
	return len(resourceParts(path)) == 1
}
