package operator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ manifests.InputsDeclarer = (*resolver)(nil)

// RenderInputs returns what a Component's render reads besides its spec
// (manifests.InputsDeclarer): the source it resolves to — a fetched chart's
// or artifact's digest, a served source's content — and the values it reads
// from ConfigMaps and Secrets (their content as read, before any
// decryption). The component reconciler renders again only when this, or
// the spec, changes. The source is resolved as a render resolves it: the
// policy checked, a chart fetched and verified (the repository asked again
// at the requeue interval, not more often), so a refusal applies nothing.
func (r *resolver) RenderInputs(ctx context.Context, _, _ string, _ manifests.Parameters) (string, error) {
	c, reader, err := r.componentAndReader(ctx)
	if err != nil {
		return "", err
	}
	if err := r.sourceAllowed(ctx, c); err != nil {
		return "", err
	}
	gen, err := r.generatorFor(ctx, c, reader)
	if err != nil {
		return "", err
	}
	if r.beforeValues != nil && len(c.Spec.ValuesFrom) > 0 {
		if err := r.beforeValues(ctx, c); err != nil {
			return "", err
		}
	}
	reads, err := r.readAllValues(ctx, reader, c)
	if err != nil {
		return "", err
	}
	sum := sha256.New()
	fmt.Fprintf(sum, "source %s\x00", identityOf(gen))
	for i, read := range reads {
		fmt.Fprintf(sum, "values %d %s %d\x00%s\x00", i, strconv.FormatBool(read.found), len(read.data), read.data)
	}
	if err := r.dependencyInputs(ctx, sum, reader, c, gen, reads); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)), nil
}

// identityOf names the source a generator was loaded from.
func identityOf(gen manifests.Generator) string {
	if g, ok := gen.(rooted); ok {
		return g.identity
	}
	return fmt.Sprintf("%T", gen)
}

// dirDigest is the digest of a directory's tree: every file's path, mode and
// content, in walk order. A served source is loaded once at start, so its
// digest changes only when the operator starts on other files.
func dirDigest(dir string) (string, error) {
	sum := sha256.New()
	err := filepath.WalkDir(dir, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		info, err := entry.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(sum, "%s\x00%s\x00", filepath.ToSlash(rel), info.Mode().Type())
		if !entry.Type().IsRegular() {
			return nil
		}
		return hashFile(sum, path)
	})
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", dir, err)
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)), nil
}

func hashFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.Copy(w, f)
	fmt.Fprintf(w, "\x00%d\x00", n)
	return err
}
