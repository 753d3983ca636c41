package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// outputFormat is the -o flag of status and list.
type outputFormat string

const (
	outputTable outputFormat = "table"
	outputYAML  outputFormat = "yaml"
	outputJSON  outputFormat = "json"
)

func addOutputFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVarP(format, "output", "o", string(outputTable), "output format: table, yaml or json")
}

func checkOutputFormat(format string) error {
	switch outputFormat(format) {
	case outputTable, outputYAML, outputJSON:
		return nil
	}
	return fmt.Errorf("--output %s: unknown format (use table, yaml or json)", format)
}

// writeStructured prints v as YAML or JSON.
func writeStructured(out io.Writer, format string, v any) error {
	var data []byte
	var err error
	if outputFormat(format) == outputJSON {
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

// newTable returns a tab writer for aligned columns; Flush it.
func newTable(out io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
}
