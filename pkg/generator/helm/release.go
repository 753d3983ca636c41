package helm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// DefaultReleaseService is .Release.Service unless WithReleaseService says
// otherwise: "Helm", as under helm template and helm install, so that labels
// and selectors built from it match a release that Helm installed.
const DefaultReleaseService = "Helm"

// release is what one render knows about the Helm release it stands in for.
type release struct {
	options chartutil.ReleaseOptions
	// prefix is the annotation prefix (the operator name).
	prefix  string
	service string
}

// releaseFor builds .Release from Generate's arguments and the component info
// in ctx: install with revision 1 unless the info says otherwise.
func (g *Generator) releaseFor(ctx context.Context, namespace, name string) (release, error) {
	info, hasInfo := manifests.ComponentInfoFrom(ctx)
	rel := release{
		options: chartutil.ReleaseOptions{Name: name, Namespace: namespace, Revision: 1, IsInstall: true},
		prefix:  info.OperatorName,
	}
	if rel.prefix == "" {
		rel.prefix = g.opts.operatorName
	}
	if rel.prefix == "" {
		return release{}, errors.New("no operator name: the context carries no manifests.ComponentInfo with an OperatorName and WithOperatorName is not set")
	}
	rel.service = g.opts.releaseService
	if rel.service == "" {
		rel.service = DefaultReleaseService
	}
	if !hasInfo {
		return rel, nil
	}
	if info.Revision > 0 {
		rel.options.Revision = int(info.Revision)
	}
	rel.options.IsInstall = info.FirstApply
	rel.options.IsUpgrade = !info.FirstApply
	return rel, nil
}

// userValues turns the parameters into values as Helm reads them from a
// values file: a JSON round trip, so that numbers are float64 and templates
// behave as under `helm template -f`.
func userValues(parameters manifests.Parameters) (map[string]any, error) {
	if parameters == nil {
		return map[string]any{}, nil
	}
	data, err := json.Marshal(parameters.ToUnstructured())
	if err != nil {
		return nil, fmt.Errorf("encoding parameters as values: %w", err)
	}
	values := map[string]any{}
	if err := json.Unmarshal(data, &values); err != nil {
		return nil, fmt.Errorf("decoding parameters as values: %w", err)
	}
	if values == nil {
		values = map[string]any{}
	}
	return values, nil
}
