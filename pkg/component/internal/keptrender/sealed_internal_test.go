package keptrender

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/sealing"
)

// TestSealedRenderHoldsNoPlaintext: a kept render's Secret holds its
// objects sealed, opens back to them, and holds none of their values,
// decompressed or not.
func TestSealedRenderHoldsNoPlaintext(t *testing.T) {
	keys := keysOf(t)
	secret, render := sealedSecret(t, keys, "s3cret-marker-value")
	for key, value := range secret.Data {
		for _, form := range [][]byte{value, gunzipped(value)} {
			if bytes.Contains(form, []byte("s3cret-marker-value")) {
				t.Fatalf("data %s holds the plaintext", key)
			}
		}
	}
	if secret.Annotations[annotationKey] != keys.Active() {
		t.Fatalf("the render-key annotation is %q, want the active key %s", secret.Annotations[annotationKey], keys.Active())
	}
	got, err := keys.renderIn(context.Background(), secret, render.Digest)
	if err != nil || got.plaintext || !bytes.Equal(got.render.data, render.data) {
		t.Fatalf("renderIn = %+v, %v", got, err)
	}
}

// TestSealedRenderRefusesWhatWasMoved: a sealed render copied into another
// component's Secret, or annotated as another render, does not open; nor
// does one sealed with a key the ring lost. Each names the Secret.
func TestSealedRenderRefusesWhatWasMoved(t *testing.T) {
	keys := keysOf(t)
	secret, render := sealedSecret(t, keys, "value")
	for name, change := range map[string]func(s *corev1.Secret){
		"another name":      func(s *corev1.Secret) { s.Name = "other.component.current-render" },
		"another namespace": func(s *corev1.Secret) { s.Namespace = "team-b" },
		"another owner":     func(s *corev1.Secret) { s.OwnerReferences[0].UID = "other-uid" },
		"other inputs":      func(s *corev1.Secret) { s.Annotations[annotationInputs] = "sha256:other" },
		"another key":       func(s *corev1.Secret) { s.Annotations[annotationKey] = "0123456789abcdef" },
	} {
		moved := secret.DeepCopy()
		change(moved)
		_, err := keys.renderIn(context.Background(), moved, render.Digest)
		var unreadable *UnreadableError
		if !errors.As(err, &unreadable) || !strings.Contains(err.Error(), client.ObjectKeyFromObject(moved).String()) {
			t.Errorf("%s: renderIn gives %v, want an UnreadableError naming the Secret", name, err)
		}
	}
	lost := keysOf(t)
	_, err := lost.renderIn(context.Background(), secret, render.Digest)
	if !strings.Contains(err.Error(), "is not among the keys held of Secret ops/keys") {
		t.Errorf("a lost key gives %v", err)
	}
}

// TestPlaintextRenderIsRead: a render kept by an operator before sealing
// is read, and said to be plaintext.
func TestPlaintextRenderIsRead(t *testing.T) {
	render, err := Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write(render.data)
	_ = w.Close()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web.component.current-render"},
		Data: map[string][]byte{dataPlaintext: gz.Bytes()}}
	got, err := keysOf(t).renderIn(context.Background(), secret, render.Digest)
	if err != nil || !got.plaintext {
		t.Fatalf("renderIn = %+v, %v", got, err)
	}
}

func sealedSecret(t *testing.T, keys *Keys, value string) (*corev1.Secret, Render) {
	t.Helper()
	render, err := Encode([]client.Object{configMap("settings", value)})
	if err != nil {
		t.Fatal(err)
	}
	return sealedFor(t, keys, render)
}

// sealedFor is the current render's Secret of a component ns/web, holding
// render sealed.
func sealedFor(t testing.TB, keys *Keys, render Render) (*corev1.Secret, Render) {
	t.Helper()
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "uid-1"}}
	cur := Current{Inputs: "sha256:inputs", Render: render}
	secret, err := currentSecretOf(owner, schema.GroupVersionKind{Group: "wavekit.dev", Version: "v1alpha1", Kind: "Component"}, 3, cur)
	if err != nil {
		t.Fatal(err)
	}
	if err := keys.sealInto(context.Background(), secret, render); err != nil {
		t.Fatal(err)
	}
	return secret, render
}

// keysOf returns keys with a new ring, whose Secret ops/keys is gone.
func keysOf(t testing.TB) *Keys {
	t.Helper()
	ring, err := sealing.New()
	if err != nil {
		t.Fatal(err)
	}
	return &Keys{ring: ring, reader: goneReader{}, secret: types.NamespacedName{Namespace: "ops", Name: "keys"}}
}

// goneReader answers every read with NotFound.
type goneReader struct{ client.Reader }

func (goneReader) Get(_ context.Context, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
	return apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, key.Name)
}

func gunzipped(data []byte) []byte {
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	out, _ := io.ReadAll(r)
	return out
}
