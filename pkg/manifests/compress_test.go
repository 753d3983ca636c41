package manifests_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestDecompress: what Compress wrote reads back; what is not gzip, and
// what would expand beyond MaxDecompressed (a Secret written to exhaust the
// reader's memory), is refused with an error.
func TestDecompress(t *testing.T) {
	objects := []byte(strings.Repeat(`{"apiVersion":"v1","kind":"ConfigMap"}`, 1000))
	compressed, err := manifests.Compress(objects)
	if err != nil {
		t.Fatal(err)
	}
	if len(compressed) >= len(objects) {
		t.Errorf("compressed to %d bytes from %d", len(compressed), len(objects))
	}
	if got, err := manifests.Decompress(compressed); err != nil || !bytes.Equal(got, objects) {
		t.Errorf("round trip: %d bytes, %v", len(got), err)
	}
	if _, err := manifests.Decompress(objects); err == nil || !strings.Contains(err.Error(), "decompressing") {
		t.Errorf("plain JSON: %v, want a decompressing error", err)
	}
	bomb, err := manifests.Compress(make([]byte, manifests.MaxDecompressed+1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := manifests.Decompress(bomb); err == nil || !strings.Contains(err.Error(), "more than 64 MiB") {
		t.Errorf("%d compressed bytes of 64 MiB and one: %v, want a refusal", len(bomb), err)
	}
	if _, err := manifests.Decompress(compressed[:len(compressed)/2]); err == nil {
		t.Error("cut in half: no error")
	}
}
