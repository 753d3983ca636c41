package sopsdecrypt_test

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/sopsdecrypt"
	"github.com/wavekit-dev/wavekit/internal/testing/sopstest"
)

const secretYAML = `apiVersion: v1
kind: Secret
metadata:
  name: db
type: Opaque
data:
  password: czNjcjN0LXBsYWludGV4dA==
stringData:
  user: admin-plaintext
`

func newKey(t *testing.T) (string, string) {
	t.Helper()
	id, recipient, err := sopstest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return id, recipient
}

func encryptedSecret(t *testing.T, recipient string) *unstructured.Unstructured {
	t.Helper()
	enc, err := sopstest.Encrypt([]byte(secretYAML), recipient, "^(data|stringData)$")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(enc), "admin-plaintext") || strings.Contains(string(enc), "czNjcjN0") {
		t.Fatalf("the encrypted manifest holds a plaintext value:\n%s", enc)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(enc, &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestDecryptObject(t *testing.T) {
	id, recipient := newKey(t)
	keys, err := sopsdecrypt.KeysFromSecret("sops-keys", map[string][]byte{"team.agekey": []byte("# a comment\n" + id + "\n"), "age.key": []byte("ignored")})
	if err != nil {
		t.Fatal(err)
	}
	obj := encryptedSecret(t, recipient)
	if !sopsdecrypt.IsEncrypted(obj.Object) {
		t.Fatal("IsEncrypted = false for an encrypted Secret")
	}
	out, err := keys.DecryptObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedString(out.Object, "data", "password"); got != "czNjcjN0LXBsYWludGV4dA==" {
		t.Errorf("data.password = %q", got)
	}
	if got, _, _ := unstructured.NestedString(out.Object, "stringData", "user"); got != "admin-plaintext" {
		t.Errorf("stringData.user = %q", got)
	}
	if _, found := out.Object["sops"]; found || out.GetName() != "db" || out.GetKind() != "Secret" {
		t.Errorf("decrypted object = %v, want the Secret db without sops metadata", out.Object)
	}
}

func TestWrongKeyNamesRecipientsNotValues(t *testing.T) {
	_, recipient := newKey(t)
	otherID, otherRecipient := newKey(t)
	keys, err := sopsdecrypt.ParseKeys("Secret wrong (k.agekey)", otherID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = keys.DecryptObject(encryptedSecret(t, recipient))
	if !errors.Is(err, sopsdecrypt.ErrNoMatchingKey) {
		t.Fatalf("err = %v, want ErrNoMatchingKey", err)
	}
	for _, want := range []string{recipient, otherRecipient, "Secret wrong (k.agekey)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if strings.Contains(err.Error(), "AGE-SECRET-KEY") || strings.Contains(err.Error(), "plaintext") {
		t.Errorf("error %q shows a secret", err)
	}
}

func TestKeysFromSecretWithoutAgekey(t *testing.T) {
	id, _ := newKey(t)
	_, err := sopsdecrypt.KeysFromSecret("sops-keys", map[string][]byte{"age.key": []byte(id)})
	if err == nil || !strings.Contains(err.Error(), "age.key") || !strings.Contains(err.Error(), ".agekey") {
		t.Fatalf("err = %v, want one that names age.key and the .agekey suffix", err)
	}
	if strings.Contains(err.Error(), id) {
		t.Errorf("error shows the key")
	}
	if _, err := sopsdecrypt.KeysFromSecret("bad", map[string][]byte{"x.agekey": []byte("not a key")}); err == nil || strings.Contains(err.Error(), "not a key") {
		t.Errorf("err = %v, want one that does not quote the key", err)
	}
}

func TestDecryptDocumentChecksMAC(t *testing.T) {
	id, recipient := newKey(t)
	keys, err := sopsdecrypt.ParseKeys("test", id)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := sopstest.Encrypt([]byte("db:\n  password: values-plaintext\nreplicas: 2\n"), recipient, "")
	if err != nil {
		t.Fatal(err)
	}
	if !sopsdecrypt.IsEncryptedDocument(enc) || sopsdecrypt.IsEncryptedDocument([]byte("replicas: 2\n")) {
		t.Fatal("IsEncryptedDocument does not tell encrypted from plain")
	}
	plain, err := keys.DecryptDocument(enc)
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{}
	if err := yaml.Unmarshal(plain, &values); err != nil || values["db"].(map[string]any)["password"] != "values-plaintext" {
		t.Fatalf("decrypted values = %v, %v", values, err)
	}
	// Dropping an encrypted value keeps every other one decryptable; only the MAC tells.
	doc := map[string]any{}
	if err := yaml.Unmarshal(enc, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "replicas")
	tampered, _ := yaml.Marshal(doc)
	if _, err := keys.DecryptDocument(tampered); err == nil || !strings.Contains(err.Error(), "MAC") {
		t.Errorf("err = %v, want a MAC mismatch", err)
	}
}

func TestMalformedIsAnError(t *testing.T) {
	id, _ := newKey(t)
	keys, err := sopsdecrypt.ParseKeys("test", id)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: map[string]any{"kind": "Secret", "data": map[string]any{"a": "ENC[AES256_GCM,data:xx"}, "sops": map[string]any{"mac": "ENC[x]", "age": "nonsense"}}}
	if _, err := keys.DecryptObject(u); err == nil {
		t.Error("a malformed object decrypted")
	}
}
