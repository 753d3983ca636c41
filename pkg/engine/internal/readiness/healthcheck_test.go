package readiness

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

func TestHealthChecks(t *testing.T) {
	checks, err := CompileHealthChecks([]manifests.HealthCheck{{
		APIVersion: "example.io/v1", Kind: "Database",
		Current: "self.status.phase == 'Running'", Failed: "self.status.phase == 'Failed'", InProgress: "self.status.phase == 'Provisioning'",
	}})
	if err != nil {
		t.Fatal(err)
	}
	object := func(apiVersion, kind string, status map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": "db"}}}
		if status != nil {
			u.Object["status"] = status
		}
		return u
	}
	for _, tt := range []struct {
		name    string
		object  *unstructured.Unstructured
		judged  bool
		status  string
		message string
	}{
		{"current", object("example.io/v1", "Database", map[string]any{"phase": "Running"}), true, "Current", ""},
		{"any version of the group", object("example.io/v2", "Database", map[string]any{"phase": "Running"}), true, "Current", ""},
		{"failed, with the object's message", object("example.io/v1", "Database", map[string]any{"phase": "Failed", "message": "disk full"}), true, "Failed",
			"health check failed: self.status.phase == 'Failed': disk full"},
		{"in progress", object("example.io/v1", "Database", map[string]any{"phase": "Provisioning"}), true, "InProgress", "health check in progress: self.status.phase == 'Provisioning'"},
		{"no status yet: waits for current", object("example.io/v1", "Database", nil), true, "InProgress", "waiting for health check: self.status.phase == 'Running'"},
		{"another kind", object("example.io/v1", "Table", map[string]any{"phase": "Running"}), false, "", ""},
		{"another group", object("other.io/v1", "Database", map[string]any{"phase": "Running"}), false, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, judged := checks.Judge(tt.object)
			if judged != tt.judged || string(r.Status) != tt.status || r.Message != tt.message {
				t.Errorf("judge = %q %q %v, want %q %q %v", r.Status, r.Message, judged, tt.status, tt.message, tt.judged)
			}
		})
	}
}

func TestHealthChecksRefuseWhatDoesNotCompile(t *testing.T) {
	for _, tt := range []struct {
		name  string
		check manifests.HealthCheck
		want  string
	}{
		{"syntax", manifests.HealthCheck{APIVersion: "example.io/v1", Kind: "Database", Current: "self.status.phase =="},
			`health check 0 (example.io/v1 Database) current "self.status.phase ==": ERROR: <input>:1:21: Syntax error`},
		{"not a bool", manifests.HealthCheck{APIVersion: "example.io/v1", Kind: "Database", Failed: "'yes'"},
			`health check 0 (example.io/v1 Database) failed "'yes'": yields string, not a bool`},
		{"no kind", manifests.HealthCheck{APIVersion: "example.io/v1", Current: "true"},
			`health check 0: apiVersion "example.io/v1" and kind "" do not name a kind`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompileHealthChecks([]manifests.HealthCheck{tt.check})
			var userErr *manifests.UserError
			if !errors.As(err, &userErr) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %v, want a UserError starting %q", err, tt.want)
			}
		})
	}
}
