package invariants_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"testing"

	"github.com/wavekit-dev/wavekit/internal/testing/invariants"
)

func TestHolds(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write([]byte(`[{"data":{"password":"` + base64.StdEncoding.EncodeToString([]byte("s3cret-value")) + `"}}]`))
	_ = w.Close()
	for name, data := range map[string][]byte{
		"plain": []byte("x s3cret-value y"), "base64": []byte(base64.StdEncoding.EncodeToString([]byte("s3cret-value"))),
		"gzipped, base64 inside": gz.Bytes(), "all of it in base64": []byte(base64.StdEncoding.EncodeToString(gz.Bytes())),
	} {
		if !invariants.Holds(data, "s3cret-value") {
			t.Errorf("%s: not found", name)
		}
	}
	if invariants.Holds([]byte("nothing here"), "s3cret-value") {
		t.Error("found in nothing")
	}
}
