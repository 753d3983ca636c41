package receiver

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"hash"
	"net/http"
	"testing"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// sign is the signature header value a sender makes of body with key.
func sign(algorithm string, newHash func() hash.Hash, key, body []byte) string {
	mac := hmac.New(newHash, key)
	mac.Write(body)
	return algorithm + "=" + hex.EncodeToString(mac.Sum(nil))
}

func TestVerify(t *testing.T) {
	token, body := []byte("s3cret"), []byte(`{"ref":"refs/heads/main"}`)
	header := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	for _, tc := range []struct {
		name   string
		typ    v1alpha1.ReceiverType
		header http.Header
		ok     bool
	}{
		{"github signs as GitHub does", v1alpha1.ReceiverGitHub, header(headerGitHubSignature, sign("sha256", sha256.New, token, body)), true},
		{"github with another key", v1alpha1.ReceiverGitHub, header(headerGitHubSignature, sign("sha256", sha256.New, []byte("guess"), body)), false},
		{"github with only the SHA-1 header", v1alpha1.ReceiverGitHub, header("X-Hub-Signature", sign("sha1", sha1.New, token, body)), false},
		{"github with a SHA-1 signature in the SHA-256 header", v1alpha1.ReceiverGitHub, header(headerGitHubSignature, sign("sha1", sha1.New, token, body)), false},
		{"github without a signature", v1alpha1.ReceiverGitHub, header(), false},
		{"github with a signature that is not hex", v1alpha1.ReceiverGitHub, header(headerGitHubSignature, "sha256=zz"), false},
		{"generic-hmac sha256", v1alpha1.ReceiverGenericHMAC, header(headerSignature, sign("sha256", sha256.New, token, body)), true},
		{"generic-hmac sha512", v1alpha1.ReceiverGenericHMAC, header(headerSignature, sign("sha512", sha512.New, token, body)), true},
		{"generic-hmac sha1", v1alpha1.ReceiverGenericHMAC, header(headerSignature, sign("sha1", sha1.New, token, body)), false},
		{"generic-hmac with GitHub's header", v1alpha1.ReceiverGenericHMAC, header(headerGitHubSignature, sign("sha256", sha256.New, token, body)), false},
		{"gitlab token", v1alpha1.ReceiverGitLab, header(headerGitLabToken, "s3cret"), true},
		{"gitlab token with a prefix of it", v1alpha1.ReceiverGitLab, header(headerGitLabToken, "s3cre"), false},
		{"gitlab without a token", v1alpha1.ReceiverGitLab, header(), false},
		{"harbor auth header", v1alpha1.ReceiverHarbor, header("Authorization", "s3cret"), true},
		{"harbor with a wrong header", v1alpha1.ReceiverHarbor, header("Authorization", "Bearer s3cret"), false},
	} {
		err := verify(tc.typ, token, tc.header, body)
		if tc.ok != (err == nil) {
			t.Errorf("%s: verify = %v, want ok %t", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, errUnverified) {
			t.Errorf("%s: %v is not errUnverified", tc.name, err)
		}
	}
	if err := verify(v1alpha1.ReceiverGitHub, token, header(headerGitHubSignature, sign("sha256", sha256.New, token, body)), append(body, ' ')); err == nil {
		t.Error("a changed body is verified")
	}
}

func TestWantedEvents(t *testing.T) {
	if !wanted(nil, "anything") || !wanted([]string{"push"}, "Push") || wanted([]string{"push"}, "ping") || !wanted([]string{"Tag Push Hook"}, "tag push hook") {
		t.Error("events are matched without regard to case, and none means every event")
	}
}

func TestDeliveryKeys(t *testing.T) {
	body := []byte("{}")
	h := http.Header{}
	h.Set(headerGitHubDelivery, "72d3162e")
	if got := deliveryKeys(v1alpha1.ReceiverGitHub, h, body); len(got) != 2 || got[0] != "delivery 72d3162e" {
		t.Errorf("github: %v, want the delivery ID and the body", got)
	}
	if got := deliveryKeys(v1alpha1.ReceiverHarbor, h, body); len(got) != 0 {
		t.Errorf("harbor names no delivery and signs no body: %v", got)
	}
	h = http.Header{}
	h.Set(headerGitLabEventUUID, "u1")
	if got := deliveryKeys(v1alpha1.ReceiverGitLab, h, body); len(got) != 1 || got[0] != "delivery u1" {
		t.Errorf("gitlab: %v, want its event UUID only (its body is not signed)", got)
	}
	h.Set(headerGitLabIdempotency, "k1")
	if got := deliveryKeys(v1alpha1.ReceiverGitLab, h, body); got[0] != "delivery k1" {
		t.Errorf("gitlab: %v, want the idempotency key first", got)
	}
}

// TestWebhookPath: Flux's path, sha256 of token, name and namespace.
func TestWebhookPath(t *testing.T) {
	sum := sha256.Sum256([]byte("tok" + "github" + "apps"))
	if got, want := webhookPath([]byte("tok"), "github", "apps"), "/hook/"+hex.EncodeToString(sum[:]); got != want {
		t.Errorf("webhookPath = %s, want %s", got, want)
	}
}
