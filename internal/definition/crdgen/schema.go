package crdgen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdschema"
)

// SchemaFile is the schema a source brings, as Helm reads it.
const SchemaFile = "values.schema.json"

// Schema is the schema of the spec of a definition's instances.
type Schema struct {
	crdschema.Result
	// FreeForm: the source has no values.schema.json (and the definition
	// names no other file): the spec is free-form.
	FreeForm bool
}

// SchemaOf makes the schema of def's instances' spec: of its own JSON
// Schema (spec.schema.jsonSchema), else of its source's file in dir
// (spec.schema.file, default values.schema.json). A document that cannot
// be made a CRD's schema is a *crdschema.Error, wrapped.
func SchemaOf(def *v1alpha1.ComponentDefinition, dir string) (Schema, error) {
	s := def.Spec.Schema
	if s != nil && s.JSONSchema != nil {
		return convert(s.JSONSchema.Raw, "spec.schema.jsonSchema")
	}
	file := SchemaFile
	if s != nil && s.File != "" {
		file = s.File
	}
	path := filepath.Join(dir, filepath.FromSlash(file))
	if rel, err := filepath.Rel(dir, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return Schema{}, fmt.Errorf("spec.schema.file %s leaves the source", file)
	}
	document, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && file == SchemaFile && (s == nil || s.File == ""):
		yes := true
		return Schema{Result: crdschema.Result{Schema: apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &yes}}, FreeForm: true}, nil
	case err != nil:
		return Schema{}, fmt.Errorf("the source's %s: %w", file, err)
	}
	return convert(document, "the source's "+file)
}

func convert(document []byte, where string) (Schema, error) {
	converted, err := crdschema.Convert(document)
	if err != nil {
		return Schema{}, fmt.Errorf("%s cannot be the schema of a kind: %w", where, err)
	}
	return Schema{Result: converted}, nil
}
