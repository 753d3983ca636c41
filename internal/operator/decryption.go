package operator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/sopsdecrypt"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// ReasonDecryptionFailed is the Ready reason of a Component whose
// SOPS-encrypted objects or values could not be decrypted: no
// spec.decryption, no key, or a key that matches no recipient. Nothing was
// applied.
const ReasonDecryptionFailed = "DecryptionFailed"

// rooted is a generator with the directory its source was read from, so
// that an object that cannot be decrypted is traced to its file.
type rooted struct {
	manifests.Generator
	root string
	// dir is the source's own directory inside root (a chart's, a
	// folder's); empty: root.
	dir string
	// identity names what it was loaded from, for its render's inputs: a
	// fetched source's digest and path, a served source's content.
	identity string
}

// decrypted returns objects with every object that carries SOPS metadata
// decrypted with the keys of spec.decryption. The keys are read only when
// there is something to decrypt.
func (r *resolver) decrypted(ctx context.Context, c *v1alpha1.Component, reader client.Reader, gen manifests.Generator, objects []client.Object) ([]client.Object, error) {
	if len(sopsdecrypt.Encrypted(objects)) == 0 {
		return objects, nil
	}
	ctx, span := decryptSpan(ctx, len(sopsdecrypt.Encrypted(objects)))
	keys, err := decryptionKeys(ctx, reader, c)
	if err != nil {
		spans.End(span, err)
		return nil, err
	}
	out, err := sopsdecrypt.Objects(keys, objects, func(u *unstructured.Unstructured, err error) error {
		return decryptionError(fmt.Errorf("%s%s: %w", describe(u), fileNote(gen, u), err))
	})
	spans.End(span, err)
	return out, err
}

// decryptSpan starts the span of a SOPS decryption of n objects, when the
// render's span records: it names how many, never what they hold.
func decryptSpan(ctx context.Context, n int) (context.Context, trace.Span) {
	ctx, span := spans.Start(ctx, "github.com/wavekit-dev/wavekit/internal/operator", "decrypt")
	if span.IsRecording() {
		span.SetAttributes(attribute.Int("wavekit.objects", n))
	}
	return ctx, span
}

// decryptedValues decrypts the content of a valuesFrom key when it is a
// SOPS-encrypted document; its MAC is checked.
func decryptedValues(ctx context.Context, reader client.Reader, c *v1alpha1.Component, ref v1alpha1.ValuesReference, data string) (string, error) {
	if !sopsdecrypt.IsEncryptedDocument([]byte(data)) {
		return data, nil
	}
	keys, err := decryptionKeys(ctx, reader, c)
	if err != nil {
		return "", err
	}
	plain, err := keys.DecryptDocument([]byte(data))
	if err != nil {
		return "", decryptionError(fmt.Errorf("%s: %w", describeValues(ref), err))
	}
	return string(plain), nil
}

// decryptionKeys reads the age keys of spec.decryption.secretRef as the
// Component's identity; nothing of them is kept.
func decryptionKeys(ctx context.Context, reader client.Reader, c *v1alpha1.Component) (*sopsdecrypt.Keys, error) {
	d := c.Spec.Decryption
	if d == nil {
		return nil, decryptionError(errors.New("the source holds SOPS-encrypted data: set spec.decryption (provider sops, secretRef to a Secret with *.agekey keys)"))
	}
	data, err := readSecret(ctx, reader, c.Namespace, "spec.decryption.secretRef", d.SecretRef.Name, decryptionError)
	if err != nil {
		return nil, err
	}
	keys, err := sopsdecrypt.KeysFromSecret(d.SecretRef.Name, data)
	if err != nil {
		return nil, decryptionError(fmt.Errorf("spec.decryption.secretRef: %w", err))
	}
	return keys, nil
}

func decryptionError(err error) error {
	return &manifests.RefusalError{Reason: ReasonDecryptionFailed, Err: fmt.Errorf("decryption: %w", err)}
}

func describe(u *unstructured.Unstructured) string {
	if ns := u.GetNamespace(); ns != "" {
		return fmt.Sprintf("%s %s/%s", u.GetKind(), ns, u.GetName())
	}
	return fmt.Sprintf("%s %s", u.GetKind(), u.GetName())
}

// fileNote names the file of the source that holds u, found by its SOPS
// MAC (unique to each encryption), or says nothing.
func fileNote(gen manifests.Generator, u *unstructured.Unstructured) string {
	src, ok := gen.(rooted)
	mac, _, _ := unstructured.NestedString(u.Object, "sops", "mac")
	if !ok || mac == "" {
		return ""
	}
	if file := fileHolding(src.root, []byte(mac)); file != "" {
		return " (file " + file + ")"
	}
	return ""
}

// maxScannedFile bounds the files fileHolding reads.
const maxScannedFile = 5 << 20

// fileHolding returns the path, relative to root, of the first YAML or
// JSON file under root that contains needle.
func fileHolding(root string, needle []byte) string {
	found := ""
	_ = filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
		if err != nil || found != "" || entry.IsDir() {
			return nil
		}
		switch filepath.Ext(path) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		if info, err := entry.Info(); err != nil || info.Size() > maxScannedFile {
			return nil
		}
		data, err := os.ReadFile(path)
		if err == nil && bytes.Contains(data, needle) {
			found, _ = filepath.Rel(root, path)
			return filepath.SkipAll
		}
		return nil
	})
	return filepath.ToSlash(found)
}
