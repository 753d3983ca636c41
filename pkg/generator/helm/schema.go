package helm

import (
	"fmt"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/wavekit-dev/wavekit/pkg/generator/valuesschema"
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
			valuesschema.SortViolations(err.Error()))
	}
	top["Release"].(map[string]any)["Service"] = rel.service
	return top, nil
}
