package operator

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// TestTrustedKeys: a remembered verifier serves its Component's generation
// within the requeue interval, and nothing else.
func TestTrustedKeys(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	component := func(uid string, generation int64, secret string) *v1alpha1.Component {
		return &v1alpha1.Component{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", UID: types.UID(uid), Generation: generation},
			Spec: v1alpha1.ComponentSpec{Chart: &v1alpha1.ChartSource{Verify: &v1alpha1.ChartVerification{
				Provider: "cosign", SecretRef: v1alpha1.LocalObjectReference{Name: secret}}}},
		}
	}
	var remembered fetch.Verifier
	cases := []struct {
		name  string
		c     *v1alpha1.Component
		after time.Duration
		want  bool
	}{
		{"the same Component, within the interval", component("a", 1, "keys"), time.Minute, true},
		{"the interval passed", component("a", 1, "keys"), 5 * time.Minute, false},
		{"a new generation", component("a", 2, "keys"), time.Minute, false},
		{"another Secret", component("a", 1, "other"), time.Minute, false},
		{"deleted and created again", component("b", 1, "keys"), time.Minute, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			keys := newTrustedKeys()
			keys.now = func() time.Time { return now }
			keys.put(component("a", 1, "keys"), remembered)
			keys.now = func() time.Time { return now.Add(tc.after) }
			if _, got := keys.get(tc.c, 5*time.Minute); got != tc.want {
				t.Errorf("remembered = %t, want %t", got, tc.want)
			}
		})
	}
}
