package session

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// OutputFormat is the -o flag of the commands that print a table, or
// the same as YAML or JSON.
type OutputFormat string

// The output formats.
const (
	OutputTable OutputFormat = "table"
	OutputYAML  OutputFormat = "yaml"
	OutputJSON  OutputFormat = "json"
)

// AddOutputFlag adds -o, --output (table, yaml or json) to cmd.
func AddOutputFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVarP(format, "output", "o", string(OutputTable), "output format: table, yaml or json")
}

// CheckOutputFormat refuses an -o that is not table, yaml or json.
func CheckOutputFormat(format string) error {
	switch OutputFormat(format) {
	case OutputTable, OutputYAML, OutputJSON:
		return nil
	}
	return fmt.Errorf("--output %s: unknown format (use table, yaml or json)", format)
}

// WriteStructured prints v as YAML or JSON.
func WriteStructured(out io.Writer, format string, v any) error {
	var data []byte
	var err error
	if OutputFormat(format) == OutputJSON {
		data, err = json.MarshalIndent(v, "", "  ")
		data = append(data, '\n')
	} else {
		data, err = yaml.Marshal(v)
	}
	if err != nil {
		return fmt.Errorf("encoding the output as %s: %w", format, err)
	}
	_, err = out.Write(data)
	return err
}

// NewTable returns a tab writer for aligned columns; Flush it.
func NewTable(out io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
}
