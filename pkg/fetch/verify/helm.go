package verify

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"helm.sh/helm/v3/pkg/provenance"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// HelmVerifier verifies charts of Helm repositories by their provenance
// files, with the Helm SDK's provenance package.
type HelmVerifier struct {
	names       []string // of the keyrings, for messages
	signatory   provenance.Signatory
	fingerprint string
	cache       *Cache
}

// NewHelm returns a verifier that trusts the keys of keyrings (PGP
// keyrings, binary or ASCII-armored, by name); what it verifies it
// remembers in cache, which may be nil.
func NewHelm(keyrings map[string][]byte, cache *Cache) (*HelmVerifier, error) {
	v := &HelmVerifier{fingerprint: fingerprint(keyrings), cache: cache}
	for name, data := range keyrings {
		ring, err := readKeyRing(data)
		if err != nil {
			return nil, fmt.Errorf("keyring %s: %w", name, err)
		}
		v.signatory.KeyRing = append(v.signatory.KeyRing, ring...)
		v.names = append(v.names, name)
	}
	if len(v.signatory.KeyRing) == 0 {
		return nil, errors.New("helm provenance: no PGP key given")
	}
	sort.Strings(v.names)
	return v, nil
}

// readKeyRing reads a binary keyring (as gpg --export writes it), or an
// ASCII-armored one (gpg --export --armor).
func readKeyRing(data []byte) (openpgp.EntityList, error) {
	if ring, err := openpgp.ReadKeyRing(bytes.NewReader(data)); err == nil && len(ring) > 0 {
		return ring, nil
	}
	ring, err := openpgp.ReadArmoredKeyRing(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not a PGP keyring, binary or armored: %w", err)
	}
	return ring, nil
}

// Verify downloads the chart's provenance file and archive and verifies
// them as `helm install --verify` does.
func (v *HelmVerifier) Verify(ctx context.Context, s fetch.Subject) (string, error) {
	key := cacheKey(Helm, s.Digest, v.fingerprint)
	if message, ok := v.cache.get(key); ok {
		return message, nil
	}
	if s.Provenance == nil || s.Archive == nil {
		return "", fmt.Errorf("helm provenance verifies charts of Helm repositories (https://), and %s is not one", s.Source)
	}
	prov, err := s.Provenance(ctx)
	if err != nil {
		return "", err
	}
	archive, err := s.Archive(ctx)
	if err != nil {
		return "", err
	}
	signedBy, err := v.verifyFiles(s.ArchiveName, archive, prov)
	if err != nil {
		return "", fmt.Errorf("provenance file %s.prov, with the keyring %s: %w", s.ArchiveName, strings.Join(v.names, ", "), err)
	}
	message := fmt.Sprintf("Helm provenance of %s (%s) verified with the keyring %s: signed by %s", s.ArchiveName, s.Digest, strings.Join(v.names, ", "), signedBy)
	v.cache.add(key, message)
	return message, nil
}

// verifyFiles writes the archive and its provenance file to a temporary
// directory, as the Helm SDK reads them, verifies them, and names the key
// that signed.
func (v *HelmVerifier) verifyFiles(name string, archive, prov []byte) (string, error) {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		return "", fmt.Errorf("archive name %q: want a file name", name)
	}
	dir, err := os.MkdirTemp("", "wavekit-provenance-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	chartPath, provPath := filepath.Join(dir, name), filepath.Join(dir, name+".prov")
	if err := os.WriteFile(chartPath, archive, 0o600); err != nil {
		return "", err
	}
	if err := os.WriteFile(provPath, prov, 0o600); err != nil {
		return "", err
	}
	verification, err := v.signatory.Verify(chartPath, provPath)
	if err != nil {
		return "", err
	}
	return signer(verification.SignedBy), nil
}

// signer names a PGP key: its first identity and its fingerprint.
func signer(e *openpgp.Entity) string {
	if e == nil || e.PrimaryKey == nil {
		return "an unknown key"
	}
	fp := strings.ToUpper(hex.EncodeToString(e.PrimaryKey.Fingerprint))
	ids := make([]string, 0, len(e.Identities))
	for id := range e.Identities {
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return fp
	}
	sort.Strings(ids) // the same message every time
	return fmt.Sprintf("%s (%s)", ids[0], fp)
}
