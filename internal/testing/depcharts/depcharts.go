package depcharts

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
)

// Greeter is chart name at version: one ConfigMap <release>-<chart name>
// that tells the chart's version and the greeting value ("hello from
// <name>" by default).
func Greeter(name, version string) localrepo.Chart {
	return localrepo.Chart{Name: name, Version: version, Values: map[string]any{"greeting": "hello from " + name},
		Templates: map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-{{ .Chart.Name }}\n" +
			"data:\n  version: {{ .Chart.Version | quote }}\n  greeting: {{ .Values.greeting | quote }}\n"}}
}

// ParentChartYAML is the Chart.yaml of Source's chart: web of repoURL
// (^1.0.0), db of registryURL as database (0.x), the library common by
// file://../common, and extra of repoURL, which its condition turns off in
// the chart's values.
func ParentChartYAML(repoURL, registryURL string) string {
	return `apiVersion: v2
name: parent
version: 1.0.0
dependencies:
  - name: web
    version: ^1.0.0
    repository: ` + repoURL + `
  - name: db
    version: 0.x
    repository: ` + registryURL + `
    alias: database
  - name: common
    version: 0.1.0
    repository: file://../common
  - name: extra
    version: 1.0.0
    repository: ` + repoURL + `
    condition: extra.enabled
`
}

// Source is a source tree (path → content): charts/parent with chartYAML
// (ParentChartYAML, or another), a values.schema.json, and a ConfigMap
// <release>-parent labelled by the library charts/common, which it names
// by file://.
func Source(chartYAML string) map[string]string {
	return map[string]string{
		"charts/parent/Chart.yaml":  chartYAML,
		"charts/parent/values.yaml": "extra:\n  enabled: false\nweb:\n  greeting: from parent\ndatabase:\n  greeting: from parent to the database\n",
		"charts/parent/values.schema.json": `{"type": "object", "properties": {"extra": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},` +
			` "web": {"type": "object"}, "database": {"type": "object"}}}`,
		"charts/parent/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-parent\n" +
			"  labels:\n    {{- include \"common.labels\" . | nindent 4 }}\ndata:\n  web: {{ .Values.web.greeting | quote }}\n",
		"charts/common/Chart.yaml":            "apiVersion: v2\nname: common\nversion: 0.1.0\ntype: library\n",
		"charts/common/templates/_labels.tpl": "{{- define \"common.labels\" -}}\napp.kubernetes.io/part-of: {{ .Chart.Name }}\n{{- end -}}\n",
	}
}

// Write writes files (path → content) under root.
func Write(root string, files map[string]string) error {
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return nil
}
