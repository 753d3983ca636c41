package main

import (
	"strings"
	"testing"
)

func TestCheckRenderKey(t *testing.T) {
	for _, ok := range []string{"", "keys", "ops/wavekit-component-operator-render-key", "wavekit.dev-render-key"} {
		if err := checkRenderKey(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"Ops/keys", "ops/", "/keys", "a/b/c", "keys_1"} {
		if err := checkRenderKey(bad); err == nil || !strings.Contains(err.Error(), "--render-key-secret") {
			t.Errorf("%q: %v, want an error naming the flag", bad, err)
		}
	}
}
