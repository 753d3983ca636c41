package bench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
)

// dependencyRounds is how many times each way of rendering runs; the
// figures are medians.
const dependencyRounds = 7

// BenchmarkChartDependencies renders a chart whose three dependencies are
// not in its charts/ — one of a Helm repository, one of an OCI registry,
// one by file:// — as whole processes: `wavekit render` with a cold chart
// cache (a new one each run) and a warm one, against `helm dependency
// build && helm template` on a fresh copy of the chart each run, as CI
// would run it. The repository and the registry are served by this
// process on localhost.
func BenchmarkChartDependencies(b *testing.B) {
	dir := b.TempDir()
	chart := dependencySource(b, dir)
	warm := filepath.Join(dir, "warm-cache")
	helmHome := filepath.Join(dir, "helm-home")
	ways := []struct {
		name string
		run  func(i int) time.Duration
	}{
		{"wavekit-cold", func(i int) time.Duration {
			return timed(b, "wavekit", "render", chart, "--name", "shop", "-n", "shop", "--plain-http",
				"--chart-cache", filepath.Join(dir, fmt.Sprintf("cold-%d", i))).wall
		}},
		{"wavekit-warm", func(int) time.Duration {
			return timed(b, "wavekit", "render", chart, "--name", "shop", "-n", "shop", "--plain-http", "--chart-cache", warm).wall
		}},
		{"helm", func(i int) time.Duration {
			copied := filepath.Join(dir, fmt.Sprintf("helm-%d", i))
			if err := os.CopyFS(copied, os.DirFS(filepath.Dir(chart))); err != nil {
				b.Fatal(err)
			}
			parent := filepath.Join(copied, "parent")
			env := []string{"HELM_CONFIG_HOME=" + helmHome, "HELM_CACHE_HOME=" + helmHome, "HELM_DATA_HOME=" + helmHome}
			start := time.Now()
			timedIn(b, parent, env, "helm", "dependency", "build", ".", "--plain-http")
			timedIn(b, parent, env, "helm", "template", "shop", ".", "-n", "shop")
			return time.Since(start)
		}},
	}
	for i := 0; i < b.N; i++ {
		timed(b, "wavekit", "render", chart, "--name", "shop", "-n", "shop", "--plain-http", "--chart-cache", warm) // fills it
		for _, way := range ways {
			var walls []time.Duration
			for r := range dependencyRounds {
				walls = append(walls, way.run(r))
			}
			slices.Sort(walls)
			b.ReportMetric(float64(walls[len(walls)/2].Milliseconds()), way.name+"-ms")
		}
	}
}

// dependencySource writes, under dir, charts/parent with three
// dependencies: web of a Helm repository, db of an OCI registry, both
// served until the benchmark ends, and the library charts/common by
// file://. It returns the parent chart's directory.
func dependencySource(b *testing.B, dir string) string {
	b.Helper()
	repo, err := localrepo.NewRepository()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(repo.Close)
	registry, err := localregistry.New("", "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(registry.Close)
	if err := repo.Add(subchart("hello", "1.0.0"), subchart("hello", "1.1.0")); err != nil {
		b.Fatal(err)
	}
	if err := registry.Push("charts", subchart("db", "0.2.0")); err != nil {
		b.Fatal(err)
	}
	files := map[string]string{
		"charts/parent/Chart.yaml": "apiVersion: v2\nname: parent\nversion: 1.0.0\ndependencies:\n" +
			"  - name: hello\n    version: ^1.0.0\n    repository: " + repo.URL + "\n" +
			"  - name: db\n    version: 0.x\n    repository: " + registry.Repository("charts") + "\n" +
			"  - name: common\n    version: 0.1.0\n    repository: file://../common\n",
		"charts/parent/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-parent\n" +
			"  labels:\n    {{- include \"common.labels\" . | nindent 4 }}\n",
		"charts/common/Chart.yaml":            "apiVersion: v2\nname: common\nversion: 0.1.0\ntype: library\n",
		"charts/common/templates/_labels.tpl": "{{- define \"common.labels\" -}}\napp.kubernetes.io/part-of: {{ .Chart.Name }}\n{{- end -}}\n",
	}
	for name, content := range files {
		path := filepath.Join(dir, "src", name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return filepath.Join(dir, "src", "charts", "parent")
}

// subchart is a chart of one ConfigMap <release>-<name>.
func subchart(name, version string) localrepo.Chart {
	return localrepo.Chart{Name: name, Version: version, Values: map[string]any{"greeting": "hello"},
		Templates: map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-{{ .Chart.Name }}\n" +
			"data:\n  greeting: {{ .Values.greeting | quote }}\n"}}
}
