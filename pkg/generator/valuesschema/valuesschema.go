package valuesschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chartutil"
)

// FileName is the name of the schema file, as in a Helm chart.
const FileName = "values.schema.json"

// Schema is the values.schema.json of a source.
type Schema struct {
	// path is the file's slash path in its source, for messages.
	path string
	data []byte
}

// Read reads FileName in the directory dir (a slash path) of fsys and checks
// that it is a schema Helm can compile. It returns nil and no error when the
// directory has no such file; a file that is not JSON or not a schema is an
// error that names it.
func Read(fsys fs.FS, dir string) (*Schema, error) {
	p := path.Join(dir, FileName)
	data, err := fs.ReadFile(fsys, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("%s: not valid JSON", p)
	}
	// Values that break the schema compile it all the same; any other
	// error is the schema's own.
	err = chartutil.ValidateAgainstSingleSchema(chartutil.Values{}, data)
	if err != nil && !errors.As(err, &chartutil.JSONSchemaValidationError{}) {
		return nil, fmt.Errorf("%s: not a JSON schema Helm can use: %w", p, err)
	}
	return &Schema{path: p, data: data}, nil
}

// Validate checks values against the schema; a nil Schema accepts any
// values. The error lists every violation, sorted, under the schema's path.
func (s *Schema) Validate(values map[string]any) error {
	if s == nil {
		return nil
	}
	if values == nil {
		values = map[string]any{}
	}
	err := chartutil.ValidateAgainstSingleSchema(values, s.data)
	if err == nil {
		return nil
	}
	violations := strings.TrimSuffix(SortViolations(err.Error()), "\n")
	return fmt.Errorf("values don't meet the specifications of the schema in %s:\n%s", s.path, violations)
}

// SortViolations sorts each run of "- at ..." entries (with their indented
// continuation lines) of a Helm schema error, between the "<chart>:"
// headers of a chart's error. Helm lists violations in no fixed order;
// sorted, the same input gives the same message, and a component's status
// does not flap.
func SortViolations(msg string) string {
	var out, run []string
	flush := func() {
		slices.Sort(run)
		out = append(out, run...)
		run = nil
	}
	for _, line := range strings.Split(strings.TrimSuffix(msg, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "- "):
			run = append(run, line)
		case strings.HasPrefix(line, " ") && len(run) > 0:
			run[len(run)-1] += "\n" + line
		default:
			flush()
			out = append(out, line)
		}
	}
	flush()
	return strings.Join(out, "\n") + "\n"
}
