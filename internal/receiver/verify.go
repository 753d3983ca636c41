package receiver

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"slices"
	"strings"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// Headers of the senders.
const (
	headerGitHubSignature = "X-Hub-Signature-256"
	headerGitHubEvent     = "X-GitHub-Event"
	headerGitHubDelivery  = "X-GitHub-Delivery"
	headerGitLabToken     = "X-Gitlab-Token"
	headerGitLabEvent     = "X-Gitlab-Event"
	// headerGitLabIdempotency is the same for every retry of one GitLab
	// delivery; older GitLab versions send only X-Gitlab-Event-UUID.
	headerGitLabIdempotency = "Idempotency-Key"
	headerGitLabEventUUID   = "X-Gitlab-Event-UUID"
	headerSignature         = "X-Signature"
)

// errUnverified is the error of a request that is not from the sender the
// Receiver expects; its wrappers say why, never with a token or signature.
var errUnverified = errors.New("not verified")

// verify checks that a request comes from the sender a Receiver of type
// typ expects, with token: a signature of the body (github, generic-hmac)
// or the token itself in a header (gitlab, harbor).
func verify(typ v1alpha1.ReceiverType, token []byte, header http.Header, body []byte) error {
	switch typ {
	case v1alpha1.ReceiverGitHub:
		// GitHub also sends the SHA-1 X-Hub-Signature; it is not accepted.
		return checkSignature(header.Get(headerGitHubSignature), headerGitHubSignature, token, body, "sha256")
	case v1alpha1.ReceiverGenericHMAC:
		return checkSignature(header.Get(headerSignature), headerSignature, token, body, "sha256", "sha512")
	case v1alpha1.ReceiverGitLab:
		return checkToken(header.Get(headerGitLabToken), headerGitLabToken, token)
	case v1alpha1.ReceiverHarbor:
		return checkToken(header.Get("Authorization"), "Authorization", token)
	}
	return fmt.Errorf("%w: unknown receiver type %q", errUnverified, typ)
}

// checkSignature checks a signature header "<hash>=<hex HMAC of body>"
// made with one of the hashes allowed.
func checkSignature(value, name string, token, body []byte, allowed ...string) error {
	if value == "" {
		return fmt.Errorf("%w: no %s header", errUnverified, name)
	}
	algorithm, signature, ok := strings.Cut(value, "=")
	var newHash func() hash.Hash
	switch {
	case !ok || !slices.Contains(allowed, algorithm):
		return fmt.Errorf("%w: the %s header is not %s=<hex>", errUnverified, name, strings.Join(allowed, "= or "))
	case algorithm == "sha512":
		newHash = sha512.New
	default:
		newHash = sha256.New
	}
	got, err := hex.DecodeString(signature)
	if err != nil {
		return fmt.Errorf("%w: the %s header is not hex", errUnverified, name)
	}
	mac := hmac.New(newHash, token)
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return fmt.Errorf("%w: the %s header does not match the body", errUnverified, name)
	}
	return nil
}

// checkToken compares a header with the token in constant time, their
// lengths included.
func checkToken(value, name string, token []byte) error {
	if value == "" {
		return fmt.Errorf("%w: no %s header", errUnverified, name)
	}
	got, want := sha256.Sum256([]byte(value)), sha256.Sum256(token)
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return fmt.Errorf("%w: the %s header is not the Receiver's token", errUnverified, name)
	}
	return nil
}

// eventOf is the event a request says it is about, "" for the types that
// name none.
func eventOf(typ v1alpha1.ReceiverType, header http.Header) string {
	switch typ {
	case v1alpha1.ReceiverGitHub:
		return header.Get(headerGitHubEvent)
	case v1alpha1.ReceiverGitLab:
		return header.Get(headerGitLabEvent)
	}
	return ""
}

// wanted tells whether a Receiver with these events acts on event: all do
// when it lists none; the comparison ignores case.
func wanted(events []string, event string) bool {
	if len(events) == 0 {
		return true
	}
	for _, e := range events {
		if strings.EqualFold(e, event) {
			return true
		}
	}
	return false
}

// deliveryKeys name a delivery, to recognise it when it comes again: its
// delivery ID, and for the types that sign the body, the body's digest (a
// replay under another delivery ID is still the same signed body).
func deliveryKeys(typ v1alpha1.ReceiverType, header http.Header, body []byte) []string {
	var keys []string
	id := ""
	switch typ {
	case v1alpha1.ReceiverGitHub:
		id = header.Get(headerGitHubDelivery)
	case v1alpha1.ReceiverGitLab:
		id = header.Get(headerGitLabIdempotency)
		if id == "" {
			id = header.Get(headerGitLabEventUUID)
		}
	}
	if id != "" {
		keys = append(keys, "delivery "+id)
	}
	if typ == v1alpha1.ReceiverGitHub || typ == v1alpha1.ReceiverGenericHMAC {
		sum := sha256.Sum256(body)
		keys = append(keys, "body "+hex.EncodeToString(sum[:]))
	}
	return keys
}

// webhookPath is a Receiver's path: /hook/ and the hex SHA-256 of its
// token, name and namespace, as Flux's Receiver.
func webhookPath(token []byte, name, namespace string) string {
	sum := sha256.New()
	sum.Write(token)
	sum.Write([]byte(name))
	sum.Write([]byte(namespace))
	return pathPrefix + hex.EncodeToString(sum.Sum(nil))
}

// pathPrefix starts every Receiver's path.
const pathPrefix = "/hook/"
