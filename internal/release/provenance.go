package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	slsa "github.com/in-toto/attestation/go/predicates/provenance/v1"
	intoto "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
)

// Build says how the artifacts were made, for their provenance.
type Build struct {
	// Target is the make target (dist).
	Target string
	// Version is the version the artifacts call themselves.
	Version string
	// Repository is where the source is (a Git URL), Revision its commit.
	Repository, Revision string
	// Builder identifies what ran the build: a CI workflow's URL, or a
	// local machine's name for one made by hand.
	Builder string
	// GoVersion is the Go toolchain's version.
	GoVersion string
}

// BuildType is the SLSA buildType of `make dist`.
const BuildType = "https://wavekit.dev/release/make-dist/v1"

// Provenance returns the in-toto Statement v1 with a SLSA Provenance v1
// predicate of subjects (file name → hex SHA-256), as indented JSON with
// its keys in order: the same build, the same bytes.
func Provenance(subjects map[string]string, build Build) ([]byte, error) {
	names := make([]string, 0, len(subjects))
	for name := range subjects {
		names = append(names, name)
	}
	sort.Strings(names)
	statement := &intoto.Statement{Type: intoto.StatementTypeUri, PredicateType: "https://slsa.dev/provenance/v1"}
	for _, name := range names {
		statement.Subject = append(statement.Subject, &intoto.ResourceDescriptor{Name: name, Digest: map[string]string{"sha256": subjects[name]}})
	}
	external, err := structpb.NewStruct(map[string]any{"target": build.Target, "version": build.Version,
		"source": map[string]any{"repository": build.Repository, "revision": build.Revision}})
	if err != nil {
		return nil, err
	}
	internal, err := structpb.NewStruct(map[string]any{"goVersion": build.GoVersion})
	if err != nil {
		return nil, err
	}
	predicate := &slsa.Provenance{
		BuildDefinition: &slsa.BuildDefinition{BuildType: BuildType, ExternalParameters: external, InternalParameters: internal,
			ResolvedDependencies: []*intoto.ResourceDescriptor{{Uri: "git+" + build.Repository + "@" + build.Revision,
				Digest: map[string]string{"gitCommit": build.Revision}}}},
		RunDetails: &slsa.RunDetails{Builder: &slsa.Builder{Id: build.Builder}},
	}
	if statement.Predicate, err = toStruct(predicate); err != nil {
		return nil, err
	}
	if err := statement.Validate(); err != nil {
		return nil, fmt.Errorf("the provenance statement: %w", err)
	}
	return stableJSON(statement)
}

// toStruct is a protobuf message as a Struct, for a statement's predicate.
func toStruct(m *slsa.Provenance) (*structpb.Struct, error) {
	data, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	s := &structpb.Struct{}
	return s, protojson.Unmarshal(data, s)
}

// stableJSON is a statement as indented JSON with sorted keys: protojson
// varies its spacing on purpose, encoding/json does not.
func stableJSON(statement *intoto.Statement) ([]byte, error) {
	data, err := protojson.Marshal(statement)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	encoder := json.NewEncoder(&out)
	encoder.SetEscapeHTML(false)
	encoder.SetIndent("", "  ")
	if err := encoder.Encode(v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Subjects are the files of dir but those skipped, by name, with their
// hex SHA-256.
func Subjects(dir string, skip ...string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || slices.Contains(skip, e.Name()) {
			continue
		}
		digest, err := fileSHA256(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out[e.Name()] = digest
	}
	return out, nil
}
