package keptrender

import (
	"context"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// BenchmarkKeptRenderSeal measures what keeping a new render of 500
// ConfigMaps costs, gzip alone (what was kept before sealing) against gzip
// and AES-GCM, and what reading it back after a restart costs, as kept
// before (read-gzip) and sealed (open): decompressing and checking the
// digest, and opening.
func BenchmarkKeptRenderSeal(b *testing.B) {
	render := renderOfConfigMaps(b, 500)
	keys := keysOf(b)
	ctx := context.Background()
	b.Run("gzip", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := manifests.Compress(render.data); err != nil {
				b.Fatal(err)
			}
		}
	})
	secret, _ := sealedFor(b, keys, render)
	b.Run("seal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := keys.sealInto(ctx, secret, render); err != nil {
				b.Fatal(err)
			}
		}
	})
	compressed, _ := manifests.Compress(render.data)
	plaintext := secret.DeepCopy()
	plaintext.Data = map[string][]byte{dataPlaintext: compressed}
	b.Run("aes-gcm", func(b *testing.B) {
		b.SetBytes(int64(len(compressed)))
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := keys.ring.Seal(aadOf(secret), compressed); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read-gzip", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := keys.renderIn(ctx, plaintext, render.Digest); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := keys.renderIn(ctx, secret, render.Digest); err != nil {
				b.Fatal(err)
			}
		}
	})
}
