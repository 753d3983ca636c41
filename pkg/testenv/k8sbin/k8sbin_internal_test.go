package k8sbin

import (
	"os"
	"path/filepath"
	"testing"
)

// A binary built with -trimpath has no checkout to run hack/control-plane.sh
// from; it finds the newest control plane the script left in its cache.
func TestCachedFindsTheNewestCompleteControlPlane(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("WAVEKIT_CACHE", cache)
	if _, ok := cached(); ok {
		t.Fatal("found a control plane in an empty cache")
	}
	all := All
	for dir, binaries := range map[string][]string{
		"1.36.0-etcd3.6.10": all,
		"1.37.1-etcd3.6.16": all,
		"1.38.0-etcd3.6.20": {"kube-apiserver", "etcd"}, // a cache from before the controllers, or a build that did not finish
	} {
		for _, name := range binaries {
			path := filepath.Join(cache, "k8s", dir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir, ok := cached()
	if want := filepath.Join(cache, "k8s", "1.37.1-etcd3.6.16"); !ok || dir != want {
		t.Fatalf("cached() = %q, %v; want %q", dir, ok, want)
	}
}
