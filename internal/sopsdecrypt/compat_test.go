package sopsdecrypt_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/sopsdecrypt"
	"github.com/wavekit-dev/wavekit/internal/testing/sopstest"
)

const valuesYAML = `# the database
db:
  password: p4ss # inline
  port: 5432
  ratio: 1.5
  tls: true
  empty: ""
  none: null
  note_unencrypted: visible
servers:
  - name: a
    weight: 2
  - plain string
  - [1, 2]
publicKey: pk-1
apiKey_secret: s-1
started: 2024-01-02
`

// compatCases encrypt with SOPS's module by each rule it offers.
var compatCases = []struct {
	name  string
	doc   string
	rules sopstest.Rules
}{
	{"default rule (unencrypted_suffix _unencrypted), comments", valuesYAML, sopstest.Rules{}},
	{"encrypted_suffix", valuesYAML, sopstest.Rules{EncryptedSuffix: "_secret"}},
	{"unencrypted_suffix", valuesYAML, sopstest.Rules{UnencryptedSuffix: "Key"}},
	{"encrypted_regex", valuesYAML, sopstest.Rules{EncryptedRegex: "^(db|servers)$"}},
	{"unencrypted_regex", valuesYAML, sopstest.Rules{UnencryptedRegex: "^public"}},
	{"mac_only_encrypted", valuesYAML, sopstest.Rules{EncryptedRegex: "^db$", MACOnlyEncrypted: true}},
	{"encrypted_comment_regex", "# sops:enc\ntoken: t-1\nname: plain\n", sopstest.Rules{EncryptedCommentRegex: "sops:enc"}},
	{"unencrypted_comment_regex", "# sops:plain\nname: plain\ntoken: t-1\n", sopstest.Rules{UnencryptedCommentRegex: "sops:plain"}},
	{"several documents", "a: 1\n---\nb: two\nc: [x, y]\n", sopstest.Rules{}},
	{"JSON", `{"a": {"b": "c", "n": 3}, "list": [true, false]}`, sopstest.Rules{}},
}

// TestDecryptDocumentAsSOPS decrypts what SOPS encrypted, by every rule,
// and compares the values with what SOPS's own module decrypts.
func TestDecryptDocumentAsSOPS(t *testing.T) {
	id, recipient := newKey(t)
	keys, err := sopsdecrypt.ParseKeys("test", id)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range compatCases {
		t.Run(tc.name, func(t *testing.T) {
			enc, want := encryptedBySOPS(t, tc.doc, tc.rules, id, recipient)
			got, err := keys.DecryptDocument(enc)
			if err != nil {
				t.Fatalf("DecryptDocument: %v\n%s", err, enc)
			}
			if g, w := documents(t, got), documents(t, want); !reflect.DeepEqual(g, w) {
				t.Errorf("decrypted\n%v\nSOPS decrypts\n%v", g, w)
			}
		})
	}
}

// encryptedBySOPS encrypts doc with SOPS's module and returns it with what
// SOPS's module decrypts from it.
func encryptedBySOPS(t *testing.T, doc string, rules sopstest.Rules, id, recipient string) (enc, plain []byte) {
	t.Helper()
	enc, err := sopstest.EncryptWith([]byte(doc), recipient, rules)
	if err != nil {
		t.Fatal(err)
	}
	plain, err = sopstest.Decrypt(enc, id)
	if err != nil {
		t.Fatalf("SOPS's module: %v", err)
	}
	return enc, plain
}

// TestDecryptObjectAsSOPS does the same for objects, whose MAC is not checked.
func TestDecryptObjectAsSOPS(t *testing.T) {
	id, recipient := newKey(t)
	keys, err := sopsdecrypt.ParseKeys("test", id)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range compatCases[:6] {
		t.Run(tc.name, func(t *testing.T) {
			enc, want := encryptedBySOPS(t, tc.doc, tc.rules, id, recipient)
			got, err := keys.DecryptObject(&unstructured.Unstructured{Object: decoded(t, enc)})
			if err != nil {
				t.Fatal(err)
			}
			if wantObj := decoded(t, want); !reflect.DeepEqual(got.Object, wantObj) {
				t.Errorf("decrypted\n%#v\nSOPS decrypts\n%#v", got.Object, wantObj)
			}
			_ = got.DeepCopy() // panics unless the values have the types of a decoded object
		})
	}
}

// TestTamperedDocuments: what changed after encryption fails, and says where.
func TestTamperedDocuments(t *testing.T) {
	id, recipient := newKey(t)
	keys, err := sopsdecrypt.ParseKeys("test", id)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := sopstest.EncryptWith([]byte("a: one-plaintext\nb: two-plaintext\nc_unencrypted: three\n"), recipient, sopstest.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]any{}
	if err := yaml.Unmarshal(enc, &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		change     func(map[string]any)
	}{
		{"a value moved to another key", "the value at a: it does not decrypt", func(d map[string]any) { d["a"] = d["b"] }},
		{"an unencrypted value changed", "MAC does not match", func(d map[string]any) { d["c_unencrypted"] = "four" }},
		{"an encrypted value replaced by plaintext", "the value at b: not in SOPS's ENC", func(d map[string]any) { d["b"] = "plain" }},
		{"two key groups", "2 key groups", func(d map[string]any) {
			sops := d["sops"].(map[string]any)
			sops["key_groups"] = []any{map[string]any{"age": sops["age"]}, map[string]any{"age": sops["age"]}}
		}},
		{"a KMS key only", "kinds kms, which are not supported", func(d map[string]any) {
			sops := d["sops"].(map[string]any)
			delete(sops, "age")
			sops["kms"] = []any{map[string]any{"arn": "arn:aws:kms:x", "enc": "e"}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changed := deepCopy(t, doc)
			tc.change(changed)
			data, err := yaml.Marshal(changed)
			if err != nil {
				t.Fatal(err)
			}
			_, err = keys.DecryptDocument(data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one with %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "plaintext") {
				t.Errorf("error %q shows a value", err)
			}
		})
	}
	moved := deepCopy(t, doc)
	delete(moved["sops"].(map[string]any), "age")
	data, _ := yaml.Marshal(moved)
	if _, err := keys.DecryptDocument(data); !errors.Is(err, sopsdecrypt.ErrNoMatchingKey) {
		t.Errorf("err = %v, want ErrNoMatchingKey for a file without keys", err)
	}
}

func documents(t *testing.T, data []byte) []any {
	t.Helper()
	var out []any
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var doc any
		if err := dec.Decode(&doc); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("%v\n%s", err, data)
		}
		out = append(out, doc)
	}
}

// decoded decodes YAML as the API machinery does: whole numbers are int64.
func decoded(t *testing.T, data []byte) map[string]any {
	t.Helper()
	j, err := sigsyaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	if err := utiljson.Unmarshal(j, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func deepCopy(t *testing.T, doc map[string]any) map[string]any {
	t.Helper()
	data, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return decoded(t, data)
}
