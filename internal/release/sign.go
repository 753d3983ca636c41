package release

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
)

// Predicate types of what a release signs.
const (
	// SignaturePredicateType is the predicate of cosign v3's image
	// signature: a statement that names the image, with an empty predicate.
	SignaturePredicateType = "https://sigstore.dev/cosign/sign/v1"
	// SBOMPredicateType is a CycloneDX SBOM's (cosign attest --type cyclonedx).
	SBOMPredicateType = "https://cyclonedx.org/bom"
	// ProvenancePredicateType is SLSA Provenance v1's (--type slsaprovenance1).
	ProvenancePredicateType = "https://slsa.dev/provenance/v1"
)

// Subject is what a statement speaks of: a name and its SHA-256 (hex).
type Subject struct {
	Name, SHA256 string
}

// Statement is an in-toto Statement v1 of subjects with predicate (a JSON
// object) of predicateType.
func Statement(subjects []Subject, predicateType string, predicate []byte) ([]byte, error) {
	var fields structpb.Struct
	if err := protojson.Unmarshal(predicate, &fields); err != nil {
		return nil, fmt.Errorf("the %s predicate is not a JSON object: %w", predicateType, err)
	}
	statement := &intoto.Statement{Type: intoto.StatementTypeUri, PredicateType: predicateType, Predicate: &fields}
	for _, s := range subjects {
		statement.Subject = append(statement.Subject, &intoto.ResourceDescriptor{Name: s.Name, Digest: map[string]string{"sha256": s.SHA256}})
	}
	if err := statement.Validate(); err != nil {
		return nil, fmt.Errorf("the %s statement: %w", predicateType, err)
	}
	return stableJSON(statement)
}

// Predicate is the predicate of an in-toto statement (provenance.intoto.json),
// to state it again of other subjects.
func Predicate(statement []byte) ([]byte, error) {
	var s struct {
		Predicate json.RawMessage `json:"predicate"`
	}
	if err := json.Unmarshal(statement, &s); err != nil || len(s.Predicate) == 0 {
		return nil, fmt.Errorf("not an in-toto statement with a predicate: %v", err)
	}
	return s.Predicate, nil
}

// SignBlob signs data and returns the Sigstore bundle (v0.3, JSON) that
// `cosign verify-blob --bundle F --key cosign.pub` checks: a message
// signature with the key's hint, no transparency log entry.
func SignBlob(key *Key, data []byte) ([]byte, error) {
	b, err := sign.Bundle(&sign.PlainData{Data: data}, key, sign.BundleOptions{})
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	return protojson.Marshal(b)
}

// Attest signs an in-toto statement as a DSSE envelope and returns its
// Sigstore bundle (JSON): what `cosign attest --new-bundle-format` attaches
// and `cosign verify-attestation` and `verify-blob-attestation` check.
func Attest(key *Key, statement []byte) ([]byte, error) {
	b, err := sign.Bundle(&sign.DSSEData{Data: statement, PayloadType: "application/vnd.in-toto+json"}, key, sign.BundleOptions{})
	if err != nil {
		return nil, fmt.Errorf("signing a statement: %w", err)
	}
	return protojson.Marshal(b)
}

// SortSubjects orders subjects by name, then digest, so that a statement
// of the same subjects has the same bytes.
func SortSubjects(subjects []Subject) {
	sort.Slice(subjects, func(i, j int) bool {
		if subjects[i].Name != subjects[j].Name {
			return subjects[i].Name < subjects[j].Name
		}
		return subjects[i].SHA256 < subjects[j].SHA256
	})
}

// TagSignature is a signature in the form cosign wrote before v3 and the
// admission controllers that predate Sigstore bundles read (Kyverno's
// verifyImages, sigstore's policy-controller): a simple-signing payload
// naming the image's digest, and its signature, pushed as the tag
// sha256-<hex>.sig of the image's repository.
type TagSignature struct {
	Payload   []byte `json:"payload"`
	Signature string `json:"signature"`
}

// SignTag signs the image repository@digest in the form of TagSignature.
func SignTag(key *Key, repository, digest string) (*TagSignature, error) {
	payload, err := json.Marshal(map[string]any{
		"critical": map[string]any{
			"identity": map[string]string{"docker-reference": repository},
			"image":    map[string]string{"docker-manifest-digest": digest},
			"type":     "cosign container image signature",
		},
		"optional": nil,
	})
	if err != nil {
		return nil, err
	}
	signature, _, err := key.SignData(context.Background(), payload)
	if err != nil {
		return nil, err
	}
	return &TagSignature{Payload: payload, Signature: base64.StdEncoding.EncodeToString(signature)}, nil
}
