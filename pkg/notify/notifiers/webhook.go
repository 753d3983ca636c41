package notifiers

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// SignatureHeader carries a generic webhook's HMAC signature, as Flux's
// generic-hmac provider sends it: "sha256=<hex>".
const SignatureHeader = "X-Signature"

// Webhook posts the event as JSON (notify.Event's fields) to URL: Flux's
// generic provider, and with an HMACKey its generic-hmac one.
type Webhook struct {
	// URL receives the POST.
	URL string
	// Token, when set, goes in "Authorization: Bearer <token>".
	Token string
	// HMACKey, when set, signs the body: X-Signature: sha256=<hex of
	// HMAC-SHA256(key, body)>.
	HMACKey []byte
	// Client sends the request (default DefaultClient).
	Client *http.Client
}

// Notify posts e.
func (w *Webhook) Notify(ctx context.Context, e notify.Event) error {
	body, err := json.Marshal(e)
	if err != nil {
		return notify.Permanent(fmt.Errorf("encoding the event: %w", err))
	}
	header := jsonHeader("application/json", e)
	if w.Token != "" {
		header.Set("Authorization", "Bearer "+w.Token)
	}
	if len(w.HMACKey) > 0 {
		header.Set(SignatureHeader, Sign(body, w.HMACKey))
	}
	_, err = send(ctx, w.Client, request{method: http.MethodPost, url: w.URL, header: header, body: body})
	return err
}

// Sign is the X-Signature value of body under key: "sha256=<hex>".
func Sign(body, key []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify tells whether signature is body's under key (in constant time).
func Verify(body, key []byte, signature string) bool {
	return hmac.Equal([]byte(Sign(body, key)), []byte(signature))
}
