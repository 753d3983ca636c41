package localrepo

import (
	"bytes"
	"fmt"
	"os"

	"github.com/ProtonMail/go-crypto/openpgp"
	"helm.sh/helm/v3/pkg/provenance"
)

// PGPKey is a PGP key pair made for a test: it signs provenance files, and
// its public keyring is what `helm install --verify --keyring` reads.
type PGPKey struct {
	entity *openpgp.Entity
	// Keyring is the public keyring, binary, as gpg --export writes it.
	Keyring []byte
}

// NewPGPKey makes a key pair for name.
func NewPGPKey(name string) (*PGPKey, error) {
	e, err := openpgp.NewEntity(name, "test", name+"@example.com", nil)
	if err != nil {
		return nil, fmt.Errorf("making a PGP key: %w", err)
	}
	var ring bytes.Buffer
	if err := e.Serialize(&ring); err != nil {
		return nil, fmt.Errorf("exporting a PGP key: %w", err)
	}
	return &PGPKey{entity: e, Keyring: ring.Bytes()}, nil
}

// AddSigned packages charts, signs each with key (<archive>.prov beside
// it, as helm package --sign writes it) and publishes them in the index.
func (r *Repository) AddSigned(key *PGPKey, charts ...Chart) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	signatory := &provenance.Signatory{Entity: key.entity}
	for _, ch := range charts {
		archive, err := PackageChart(r.dir, ch)
		if err != nil {
			return err
		}
		prov, err := signatory.ClearSign(archive)
		if err != nil {
			return fmt.Errorf("signing %s: %w", archive, err)
		}
		if err := os.WriteFile(archive+".prov", []byte(prov), 0o644); err != nil {
			return err
		}
	}
	return r.index()
}
