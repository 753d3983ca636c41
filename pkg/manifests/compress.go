package manifests

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// MaxDecompressed bounds what Decompress returns: a Secret holds 1 MiB, and
// objects compress about tenfold, so nothing stored honestly comes near it.
const MaxDecompressed = 64 << 20

// Compress gzips data: the form in which rendered objects and inventories
// are kept in Secrets (a component's kept render, the CLI's releases).
func Compress(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(data); err != nil {
		return nil, fmt.Errorf("compressing: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("compressing: %w", err)
	}
	return buf.Bytes(), nil
}

// Decompress reverses Compress. It refuses data that is not gzip, and data
// that would expand beyond MaxDecompressed, rather than fill the memory of
// whoever reads a Secret that someone else may have written.
func Decompress(data []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decompressing: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(r, MaxDecompressed+1))
	if err != nil {
		return nil, fmt.Errorf("decompressing: %w", err)
	}
	if len(out) > MaxDecompressed {
		return nil, fmt.Errorf("decompressing: more than %d MiB", MaxDecompressed>>20)
	}
	return out, nil
}
