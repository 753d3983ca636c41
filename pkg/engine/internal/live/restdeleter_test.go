package live

import "testing"

func TestRemovedAtOnce(t *testing.T) {
	for answer, want := range map[string]bool{
		`{"kind":"Status","apiVersion":"v1","status":"Success"}`:                                  true,
		`{"kind":"ConfigMap","metadata":{"name":"a"}}`:                                            true,
		`{"kind":"ConfigMap","metadata":{"name":"a","deletionTimestamp":"2026-11-23T10:00:00Z"}}`: false,
		`{"kind":"Namespace","metadata":{"name":"a","deletionTimestamp":"2026-11-23T10:00:00Z"}}`: false,
		`not json`: false,
		`{}`:       false,
	} {
		if got := removedAtOnce([]byte(answer)); got != want {
			t.Errorf("removedAtOnce(%s) = %v, want %v", answer, got, want)
		}
	}
}
