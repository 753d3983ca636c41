package component_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

func TestShardSelector(t *testing.T) {
	for _, tc := range []struct {
		key     string
		labels  map[string]string
		matches bool
	}{
		{"", nil, true},
		{"", map[string]string{"team": "a"}, true},
		{"", map[string]string{"ops.example.com/shard": "blue"}, false},
		{"", map[string]string{"wavekit.dev/shard": "blue"}, true}, // another operator's label
		{"blue", map[string]string{"ops.example.com/shard": "blue"}, true},
		{"blue", map[string]string{"ops.example.com/shard": "green"}, false},
		{"blue", nil, false},
	} {
		selector, err := component.ShardSelector("ops.example.com", tc.key)
		if err != nil {
			t.Fatalf("ShardSelector(%q): %v", tc.key, err)
		}
		if got := selector.Matches(labels.Set(tc.labels)); got != tc.matches {
			t.Errorf("shard %q, labels %v: matches = %v, want %v", tc.key, tc.labels, got, tc.matches)
		}
	}
	if _, err := component.ShardSelector("ops.example.com", "not a key"); err == nil {
		t.Error(`ShardSelector("not a key") accepted a key that is not a label value`)
	}
}
