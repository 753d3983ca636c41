package imagebuild

import (
	"bytes"
	"encoding/pem"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// caBundle is where an image with CACertificates holds its CA bundle: where
// Go (and most TLS libraries) look on Debian, and where distroless has it.
const caBundle = "etc/ssl/certs/ca-certificates.crt"

// caCertificates is the CA bundle, PEM: the Mozilla NSS roots of
// golang.org/x/crypto/x509roots/fallback, the roots the operator embeds.
// A root's distrust-after date cannot be said in PEM; like Debian's
// ca-certificates, the bundle keeps such a root unconstrained.
func caCertificates() []byte {
	var buf bytes.Buffer
	for root := range bundle.Roots() {
		_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: root.Certificate})
	}
	return buf.Bytes()
}
