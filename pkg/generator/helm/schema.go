package helm

import (
	"fmt"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// renderValues builds the values a render sees (.Values, .Release,
// .Capabilities, .Chart) with Helm's chartutil and validates .Values against
// the values.schema.json files of the chart and its subcharts, as `helm
// template` does. Helm lists schema violations in no fixed order; they are
// sorted here so that the same input gives the same message (and a
// component's status does not flap).
func renderValues(ch *chart.Chart, values map[string]any, rel release, caps *chartutil.Capabilities) (chartutil.Values, error) {
	top, err := chartutil.ToRenderValuesWithSchemaValidation(ch, values, rel.options, caps, true)
	if err != nil {
		return nil, err
	}
	if err := chartutil.ValidateAgainstSchema(ch, top["Values"].(chartutil.Values)); err != nil {
		return nil, fmt.Errorf("values don't meet the specifications of the schema(s) in the following chart(s):\n%s",
			sortViolations(err.Error()))
	}
	top["Release"].(map[string]any)["Service"] = rel.service
	return top, nil
}

// sortViolations sorts each run of "- at ..." entries (with their indented
// continuation lines) between the "<chart>:" headers of a schema error.
func sortViolations(msg string) string {
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
