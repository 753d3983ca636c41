package apirequest_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/apirequest"
)

func TestVerbAndResource(t *testing.T) {
	cases := []struct {
		method, target, contentType string
		verb, resource              string
	}{
		{http.MethodGet, "/api/v1/namespaces/ns/configmaps/a", "", "get", "configmaps"},
		{http.MethodGet, "/api/v1/namespaces/ns/configmaps", "", "list", "configmaps"},
		{http.MethodGet, "/apis/apps/v1/deployments?watch=true", "", "watch", "deployments"},
		{http.MethodPost, "/api/v1/namespaces", "", "create", "namespaces"},
		{http.MethodPut, "/apis/apps/v1/namespaces/ns/deployments/web/status", "", "update", "deployments/status"},
		{http.MethodPatch, "/api/v1/namespaces/ns/configmaps/a", "application/apply-patch+yaml", "apply", "configmaps"},
		{http.MethodPatch, "/api/v1/namespaces/ns/configmaps/a", "application/merge-patch+json", "patch", "configmaps"},
		{http.MethodDelete, "/api/v1/namespaces/ns/configmaps/a", "", "delete", "configmaps"},
		{http.MethodGet, "/apis", "", "get", "discovery"},
	}
	for _, c := range cases {
		req := httptest.NewRequest(c.method, c.target, nil)
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		if verb, resource := apirequest.Verb(req), apirequest.Resource(req.URL.Path); verb != c.verb || resource != c.resource {
			t.Errorf("%s %s: %s %s, want %s %s", c.method, c.target, verb, resource, c.verb, c.resource)
		}
	}
}
