package helm

import (
	"helm.sh/helm/v3/pkg/chart"
)

// cloneChart copies what Helm's dependency processing changes in place (the
// metadata and its dependency list, the values, the dependency tree) so that
// each render starts from the chart as loaded and renders can run
// concurrently. Templates, files and schemas are shared: nothing writes them.
func cloneChart(in *chart.Chart) *chart.Chart {
	out := *in
	out.Metadata = cloneMetadata(in.Metadata)
	out.Values = cloneValue(in.Values).(map[string]any)
	deps := make([]*chart.Chart, 0, len(in.Dependencies()))
	for _, dep := range in.Dependencies() {
		deps = append(deps, cloneChart(dep))
	}
	out.SetDependencies(deps...)
	return &out
}

func cloneMetadata(in *chart.Metadata) *chart.Metadata {
	if in == nil {
		return nil
	}
	out := *in
	out.Dependencies = make([]*chart.Dependency, 0, len(in.Dependencies))
	for _, dep := range in.Dependencies {
		if dep == nil {
			out.Dependencies = append(out.Dependencies, nil)
			continue
		}
		d := *dep
		d.ImportValues = cloneValue(dep.ImportValues).([]any)
		out.Dependencies = append(out.Dependencies, &d)
	}
	if in.Dependencies == nil {
		out.Dependencies = nil
	}
	return &out
}

// cloneValue deep-copies decoded YAML: maps, lists and scalars. A nil map or
// list stays a typed nil.
func cloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return t
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = cloneValue(e)
		}
		return out
	case []any:
		if t == nil {
			return t
		}
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneValue(e)
		}
		return out
	default:
		return v
	}
}
