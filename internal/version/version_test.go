package version

import (
	"testing"
)

func TestIsRelease(t *testing.T) {
	for v, want := range map[string]bool{
		"v0.2.0":                               true,
		"v1.0.0-rc.1":                          true,
		"v0.0.0":                               false,
		"(devel)":                              false,
		"":                                     false,
		"v0.0.0-20261123172628-e6bea71abcde":   false,
		"v0.2.1-0.20261123172628-e6bea71abcde": false,
		"v0.2.0+dirty":                         false,
	} {
		if got := IsRelease(v); got != want {
			t.Errorf("IsRelease(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestStringPrefersTheStamp(t *testing.T) {
	defer func(old string) { stamped = old }(stamped)
	stamped = "v1.2.3"
	if got := String(); got != "v1.2.3" {
		t.Fatalf("String() = %q with stamp v1.2.3", got)
	}
	stamped = "not-a-version"
	if got := String(); got == "not-a-version" {
		t.Fatalf("String() returned an invalid stamp")
	}
}
