package helm_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"

	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// benchApps is the number of apps in the benchmark chart; each renders four
// objects (ServiceAccount, ConfigMap, Service, Deployment).
const benchApps = 60

const benchHelpers = `{{- define "bench.labels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}
`

const benchApp = `{{- $app := index .Values.apps %[1]q }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .Release.Name }}-%[1]s
  labels: {{- include "bench.labels" . | nindent 4 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-%[1]s
  labels: {{- include "bench.labels" . | nindent 4 }}
data:
  config.yaml: |-
    {{- toYaml $app.config | nindent 4 }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-%[1]s
  labels: {{- include "bench.labels" . | nindent 4 }}
spec:
  selector:
    app: %[1]s
  ports:
    - port: {{ $app.port }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-%[1]s
  labels: {{- include "bench.labels" . | nindent 4 }}
spec:
  replicas: {{ $app.replicas }}
  selector:
    matchLabels:
      app: %[1]s
  template:
    metadata:
      labels:
        app: %[1]s
    spec:
      serviceAccountName: {{ .Release.Name }}-%[1]s
      containers:
        - name: main
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          ports:
            - containerPort: {{ $app.port }}
          resources: {{- toYaml .Values.resources | nindent 12 }}
`

// writeBenchChart writes a chart that renders benchApps*4 objects.
func writeBenchChart(b *testing.B) string {
	dir := filepath.Join(b.TempDir(), "bench")
	values := "image:\n  repository: nginx\n  tag: \"1.27\"\nresources:\n  limits:\n    cpu: 100m\napps:\n"
	files := map[string]string{
		"Chart.yaml":             "apiVersion: v2\nname: bench\nversion: 0.1.0\n",
		"templates/_helpers.tpl": benchHelpers,
	}
	for i := range benchApps {
		name := fmt.Sprintf("app%03d", i)
		values += fmt.Sprintf("  %s:\n    port: %d\n    replicas: %d\n    config:\n      name: %s\n      level: info\n", name, 8000+i, 1+i%3, name)
		files["templates/"+name+".yaml"] = fmt.Sprintf(benchApp, name)
	}
	files["values.yaml"] = values
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func benchGenerator(b *testing.B) *helm.Generator {
	g, err := helm.Load(writeBenchChart(b), helm.WithOperatorName("bench.wavekit.dev"))
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkRenderWavekit measures Generate: dependency processing on a copy
// of the chart, values, schema, engine, sorting, decoding and annotating.
func BenchmarkRenderWavekit(b *testing.B) {
	g := benchGenerator(b)
	ctx := manifests.WithComponentInfo(context.Background(), manifests.ComponentInfo{OperatorName: "bench.wavekit.dev", FirstApply: true})
	objects, err := g.Generate(ctx, "ns", "rel", nil)
	if err != nil || len(objects) != 4*benchApps {
		b.Fatalf("rendered %d objects, error %v", len(objects), err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Generate(ctx, "ns", "rel", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderHelmEngine measures Helm's engine.Render alone on the same
// loaded chart, with the render values prepared once: the raw template cost.
func BenchmarkRenderHelmEngine(b *testing.B) {
	ch := benchGenerator(b).Chart()
	values, err := chartutil.ToRenderValues(ch, map[string]any{},
		chartutil.ReleaseOptions{Name: "rel", Namespace: "ns", Revision: 1, IsInstall: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.Render(ch, values); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderHelmInstallPath measures what `helm template` does in
// memory on the same chart: values, engine and releaseutil.SortManifests,
// without decoding into objects.
func BenchmarkRenderHelmInstallPath(b *testing.B) {
	ch := benchGenerator(b).Chart()
	b.ReportAllocs()
	for b.Loop() {
		values, err := chartutil.ToRenderValues(ch, map[string]any{},
			chartutil.ReleaseOptions{Name: "rel", Namespace: "ns", Revision: 1, IsInstall: true}, nil)
		if err != nil {
			b.Fatal(err)
		}
		files, err := engine.Render(ch, values)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder); err != nil {
			b.Fatal(err)
		}
	}
}
