package bench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// cliObjects is how many ConfigMaps BenchmarkCLI installs.
const cliObjects = 500

// cliRounds is how many times each tool runs its steps; the table shows
// the median of each step.
const cliRounds = 3

// cliSteps are the rows of BenchmarkCLI's table, and cliMetrics their
// names in the benchmark's metrics.
var (
	cliSteps   = []string{"install, wait", "change all, wait", "diff, nothing changed", "delete, wait"}
	cliMetrics = []string{"install", "change", "diff", "delete"}
)

// cliTool runs the steps of one tool in a namespace; a nil step is one the
// tool does not have.
type cliTool struct {
	name  string
	steps func(c cliCase) [][]string
}

// cliCase is what one tool's steps work on.
type cliCase struct {
	kubeconfig, namespace, chart string
	// manifests are the chart rendered with value v1 and with v2, for the
	// tools that take plain YAML.
	v1, v2 string
}

var cliTools = []cliTool{
	{"wavekit", func(c cliCase) [][]string {
		common := []string{"--kubeconfig", c.kubeconfig, "-n", c.namespace}
		return [][]string{
			append([]string{"apply", "bench", c.chart, "--wait"}, common...),
			append([]string{"apply", "bench", c.chart, "--wait", "--set", "value=v2"}, common...),
			append([]string{"diff", "bench", c.chart, "--set", "value=v2"}, common...),
			append([]string{"delete", "bench", "--wait"}, common...),
		}
	}},
	{"helm", helmSteps},
	// Helm 4 applies server-side on install and waits with kstatus (a
	// bare --wait is its "watcher" strategy).
	{"helm4", helmSteps},
	{"kubectl", func(c cliCase) [][]string {
		common := []string{"--kubeconfig", c.kubeconfig, "-n", c.namespace}
		return [][]string{
			append([]string{"apply", "--server-side", "-f", c.v1}, common...),
			append([]string{"apply", "--server-side", "-f", c.v2}, common...),
			append([]string{"diff", "--server-side", "-f", c.v2}, common...),
			// kubectl's --wait polls the objects one by one (99 s for 500
			// ConfigMaps); ConfigMaps are gone when their delete returns.
			append([]string{"delete", "--wait=false", "-f", c.v2}, common...),
		}
	}},
	{"kapp", func(c cliCase) [][]string {
		common := []string{"--kubeconfig", c.kubeconfig, "-n", c.namespace, "-a", "bench", "--yes"}
		return [][]string{
			append([]string{"deploy", "-f", c.v1}, common...),
			append([]string{"deploy", "-f", c.v2}, common...),
			append([]string{"deploy", "--diff-run", "-f", c.v2}, common...),
			append([]string{"delete"}, common...),
		}
	}},
}

// helmSteps are the steps of helm 3 and helm 4.
func helmSteps(c cliCase) [][]string {
	common := []string{"--kubeconfig", c.kubeconfig, "-n", c.namespace}
	return [][]string{
		append([]string{"install", "bench", c.chart, "--wait"}, common...),
		append([]string{"upgrade", "bench", c.chart, "--wait", "--set", "value=v2"}, common...),
		nil, // helm diff is a plugin, not helm
		append([]string{"uninstall", "bench", "--wait"}, common...),
	}
}

// BenchmarkCLI installs, changes, diffs and deletes one release of
// cliObjects ConfigMaps with the wavekit CLI, helm 3, helm 4, kubectl and kapp, each
// in a namespace of its own, cliRounds times, and logs a table of the
// median wall time of each step and the peak RSS of each tool.
func BenchmarkCLI(b *testing.B) {
	for range b.N {
		kubeconfig := filepath.Join(b.TempDir(), "kubeconfig")
		if err := testcluster.WriteKubeconfig(env.Get(b).Config, kubeconfig); err != nil {
			b.Fatal(err)
		}
		table := map[string][]time.Duration{}
		peak := map[string]float64{}
		for _, tool := range cliTools {
			walls, rss := runTool(b, tool, kubeconfig)
			table[tool.name], peak[tool.name] = walls, rss
			for i, wall := range walls {
				if wall > 0 {
					b.ReportMetric(float64(wall.Milliseconds()), tool.name+"-"+cliMetrics[i]+"-ms")
				}
			}
		}
		for _, helm := range []string{"helm", "helm4"} {
			for i, metric := range cliMetrics {
				if ours, theirs := table["wavekit"][i], table[helm][i]; ours > 0 && theirs > 0 {
					b.ReportMetric(float64(theirs)/float64(ours), helm+"-"+metric+"-x-slower")
				}
			}
		}
		b.Log("\n" + cliTable(table, peak))
	}
}

// runTool runs a tool's steps cliRounds times and returns the median wall
// time of each step (0 where the tool has none) and its peak RSS.
func runTool(b *testing.B, tool cliTool, kubeconfig string) ([]time.Duration, float64) {
	rounds := make([][]time.Duration, len(cliSteps))
	peak := 0.0
	for range cliRounds {
		ns := newNamespace(b, env.Get(b), "cli-"+tool.name)
		c := cliCase{kubeconfig: kubeconfig, namespace: ns, chart: configMapChart(b, cliObjects)}
		c.v1, c.v2 = configMapManifest(b, ns, "v1"), configMapManifest(b, ns, "v2")
		for i, args := range tool.steps(c) {
			if args == nil {
				continue
			}
			r := timed(b, tool.name, args...)
			rounds[i] = append(rounds[i], r.wall)
			peak = max(peak, r.rssMiB)
		}
	}
	medians := make([]time.Duration, len(cliSteps))
	for i, walls := range rounds {
		if len(walls) > 0 {
			medians[i] = median(walls)
		}
	}
	return medians, peak
}

// cliTable formats the medians as a Markdown table, a column per tool.
func cliTable(table map[string][]time.Duration, peak map[string]float64) string {
	var out strings.Builder
	fmt.Fprintf(&out, "| %d ConfigMaps, median of %d |", cliObjects, cliRounds)
	for _, tool := range cliTools {
		fmt.Fprintf(&out, " %s |", tool.name)
	}
	out.WriteString("\n|---|" + strings.Repeat("---|", len(cliTools)) + "\n")
	for i, step := range cliSteps {
		fmt.Fprintf(&out, "| %s |", step)
		for _, tool := range cliTools {
			if wall := table[tool.name][i]; wall > 0 {
				fmt.Fprintf(&out, " %s |", wall.Round(10*time.Millisecond))
			} else {
				out.WriteString(" – |")
			}
		}
		out.WriteString("\n")
	}
	out.WriteString("| peak RSS |")
	for _, tool := range cliTools {
		fmt.Fprintf(&out, " %.0f MiB |", peak[tool.name])
	}
	return out.String()
}

// configMapChart writes a Helm chart of n ConfigMaps whose data is the
// value "value".
func configMapChart(b *testing.B, n int) string {
	dir := b.TempDir()
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: configmaps\nversion: 0.1.0\n",
		"values.yaml": fmt.Sprintf("count: %d\nvalue: v1\n", n),
		"templates/configmaps.yaml": "{{- range $i := until (int .Values.count) }}\n---\napiVersion: v1\nkind: ConfigMap\n" +
			"metadata:\n  name: cm-{{ printf \"%05d\" $i }}\ndata:\n  value: {{ $.Values.value | quote }}\n{{- end }}\n",
	}
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

// configMapManifest writes the chart's objects, rendered with value, as one
// YAML file for the tools that take plain manifests.
func configMapManifest(b *testing.B, namespace, value string) string {
	var out strings.Builder
	for i := range cliObjects {
		fmt.Fprintf(&out, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: %s\ndata:\n  value: %q\n", configMapName(i), namespace, value)
	}
	path := filepath.Join(b.TempDir(), value+".yaml")
	if err := os.WriteFile(path, []byte(out.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}
