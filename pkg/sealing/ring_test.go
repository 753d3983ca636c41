package sealing

import (
	"bytes"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSealOpens(t *testing.T) {
	r := mustNew(t)
	aad := AAD("ns", "web.component.current-render")
	id, sealed, err := r.Seal(aad, []byte("the plaintext"))
	if err != nil || id != r.Active() {
		t.Fatalf("Seal = %s, %v; want the active key %s", id, err, r.Active())
	}
	if bytes.Contains(sealed, []byte("plaintext")) {
		t.Fatal("the sealed data holds the plaintext")
	}
	plain, err := r.Open(id, aad, sealed)
	if err != nil || string(plain) != "the plaintext" {
		t.Fatalf("Open = %q, %v", plain, err)
	}
	_, again, _ := r.Seal(aad, []byte("the plaintext"))
	if bytes.Equal(again, sealed) {
		t.Fatal("two seals of one plaintext are equal: the nonce is not new")
	}
}

// TestOpenRefuses: what was changed, moved to another place or sealed with
// a key the ring does not hold does not open.
func TestOpenRefuses(t *testing.T) {
	r := mustNew(t)
	aad := AAD("ns", "a")
	id, sealed, err := r.Seal(aad, []byte("value"))
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-1] ^= 1
	for name, try := range map[string]func() error{
		"changed":         func() error { _, err := r.Open(id, aad, flipped); return err },
		"moved":           func() error { _, err := r.Open(id, AAD("ns", "b"), sealed); return err },
		"parts regrouped": func() error { _, err := r.Open(id, AAD("nsa", ""), sealed); return err },
		"cut":             func() error { _, err := r.Open(id, aad, sealed[:10]); return err },
	} {
		if err := try(); !errors.Is(err, ErrNotAuthentic) {
			t.Errorf("%s: Open gives %v, want ErrNotAuthentic", name, err)
		}
	}
	var unknown *UnknownKeyError
	if _, err := mustNew(t).Open(id, aad, sealed); !errors.As(err, &unknown) || unknown.ID != id {
		t.Errorf("another ring's Open gives %v, want an UnknownKeyError for %s", err, id)
	}
}

// TestRotatedKeepsOnePrevious: a rotation keeps the active key for reading;
// the next one drops it.
func TestRotatedKeepsOnePrevious(t *testing.T) {
	first := mustNew(t)
	aad := AAD("x")
	id, sealed, _ := first.Seal(aad, []byte("v"))
	second, err := first.Rotated()
	if err != nil {
		t.Fatal(err)
	}
	if second.Active() == id {
		t.Fatal("the rotation kept the active key")
	}
	if _, err := second.Open(id, aad, sealed); err != nil {
		t.Fatalf("the previous key does not open what it sealed: %v", err)
	}
	third, _ := second.Rotated()
	var unknown *UnknownKeyError
	if _, err := third.Open(id, aad, sealed); !errors.As(err, &unknown) {
		t.Fatalf("a key two rotations old still opens: %v", err)
	}
	if len(third.IDs()) != 2 {
		t.Fatalf("a rotated ring holds %v", third.IDs())
	}
}

func TestSecretRoundTrip(t *testing.T) {
	r, _ := mustNew(t).Rotated()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "keys", Annotations: map[string]string{"other": "stays"}}}
	r.Into(secret)
	back, err := FromSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	if back.Active() != r.Active() || back.previous != r.previous || len(back.IDs()) != 2 || secret.Annotations["other"] != "stays" {
		t.Fatalf("read back %+v from %+v", back, secret)
	}
	for name, change := range map[string]func(s *corev1.Secret){
		"another type":  func(s *corev1.Secret) { s.Type = corev1.SecretTypeOpaque },
		"a short key":   func(s *corev1.Secret) { s.Data[r.Active()] = []byte("short") },
		"no active key": func(s *corev1.Secret) { delete(s.Data, r.Active()) },
		"no annotation": func(s *corev1.Secret) { delete(s.Annotations, AnnotationActive) },
	} {
		bad := secret.DeepCopy()
		change(bad)
		if _, err := FromSecret(bad); err == nil {
			t.Errorf("a Secret with %s is read as a ring", name)
		}
	}
}

func mustNew(t *testing.T) *Ring {
	t.Helper()
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return r
}
