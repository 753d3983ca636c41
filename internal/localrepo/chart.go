package localrepo

import (
	"fmt"
	"sort"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/yaml"
)

// Chart is a chart to package: its name, version, default values,
// templates by file name under templates/, values.schema.json, and the
// dependencies its Chart.yaml lists (not packaged with it).
type Chart struct {
	Name         string
	Version      string
	Values       map[string]any
	Templates    map[string]string
	Schema       []byte
	Dependencies []*chart.Dependency
}

// PackageChart writes ch as dir/<name>-<version>.tgz, as helm package does,
// and returns the archive's path.
func PackageChart(dir string, ch Chart) (string, error) {
	c := &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: ch.Name, Version: ch.Version, Dependencies: ch.Dependencies},
		Values:   ch.Values,
		Schema:   ch.Schema,
	}
	if ch.Values != nil {
		raw, err := yaml.Marshal(ch.Values)
		if err != nil {
			return "", fmt.Errorf("chart %s: values: %w", ch.Name, err)
		}
		c.Raw = append(c.Raw, &chart.File{Name: chartutil.ValuesfileName, Data: raw})
	}
	names := make([]string, 0, len(ch.Templates))
	for name := range ch.Templates {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c.Templates = append(c.Templates, &chart.File{Name: "templates/" + name, Data: []byte(ch.Templates[name])})
	}
	path, err := chartutil.Save(c, dir)
	if err != nil {
		return "", fmt.Errorf("packaging chart %s %s: %w", ch.Name, ch.Version, err)
	}
	return path, nil
}

// Hello is a chart of one ConfigMap, named after the release, that tells
// the chart version and the greeting value (default "hello") it was
// rendered with: enough to see which version of a repository was installed.
func Hello(version string) Chart {
	return Chart{Name: "hello", Version: version, Values: map[string]any{"greeting": "hello"},
		Templates: map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n" +
			"data:\n  version: {{ .Chart.Version | quote }}\n  greeting: {{ .Values.greeting | quote }}\n"}}
}
