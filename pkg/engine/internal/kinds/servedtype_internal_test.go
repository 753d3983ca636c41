package kinds

import (
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestServedType: the one managed-instance rule, as the sort for apply, the
// order of deletion and the count of foreign instances ask it.
func TestServedType(t *testing.T) {
	crd := manifests.TypeInfo{Group: "example.com", Kind: "Widget"}
	apiService := manifests.TypeInfo{Group: "metrics.example.com", Kind: "*"}
	for _, tc := range []struct {
		name        string
		types       []manifests.TypeInfo
		group, kind string
		want        int
		wantOK      bool
	}{
		{"no types serve nothing", nil, "example.com", "Widget", -1, false},
		{"a CRD serves its kind", []manifests.TypeInfo{crd}, "example.com", "Widget", 0, true},
		{"a CRD serves no other kind of its group", []manifests.TypeInfo{crd}, "example.com", "Gadget", -1, false},
		{"a CRD serves no other group", []manifests.TypeInfo{crd}, "other.com", "Widget", -1, false},
		{"an APIService serves every kind of its group", []manifests.TypeInfo{apiService}, "metrics.example.com", "NodeMetrics", 0, true},
		{"an APIService serves no other group", []manifests.TypeInfo{apiService}, "example.com", "Widget", -1, false},
		{"a type of that very kind wins over a wildcard before it",
			[]manifests.TypeInfo{{Group: "example.com", Kind: "*"}, crd}, "example.com", "Widget", 1, true},
		{"a type of that very kind wins over a wildcard after it",
			[]manifests.TypeInfo{crd, {Group: "example.com", Kind: "*"}}, "example.com", "Widget", 0, true},
		{"of equal types the last serves", []manifests.TypeInfo{crd, apiService, crd}, "example.com", "Widget", 2, true},
		{"of equal wildcards the last serves", []manifests.TypeInfo{apiService, crd, apiService}, "metrics.example.com", "PodMetrics", 2, true},
		{"a group wildcard serves every group", []manifests.TypeInfo{{Group: "*", Kind: "Widget"}}, "other.com", "Widget", 0, true},
		{"a group suffix serves its subgroups", []manifests.TypeInfo{{Group: "*.example.com", Kind: "*"}}, "a.example.com", "Widget", 0, true},
		{"a group suffix does not serve the bare suffix", []manifests.TypeInfo{{Group: "*.example.com", Kind: "*"}}, "example.com", "Widget", -1, false},
		{"the core group is a group like others", []manifests.TypeInfo{crd}, "", "Widget", -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ServedType(tc.types, tc.group, tc.kind)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("servedType(%v, %q, %q) = %d, %v; want %d, %v", tc.types, tc.group, tc.kind, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
