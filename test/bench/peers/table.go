package main

import (
	"fmt"
	"slices"
	"strings"
)

// row is a line of the table: a scenario's figure for every tool.
type row struct {
	scenario, figure string
	value            func(result) float64
	format           string
}

var tableRows = []row{
	{"install", "to the last release Ready (s)", func(r result) float64 { return r.Seconds }, "%.1f"},
	{"install", "API requests", func(r result) float64 { return float64(r.Requests.Total) }, "%.0f"},
	{"install", "tool CPU (s)", func(r result) float64 { return r.CPUSeconds }, "%.1f"},
	{"install", "kube-apiserver CPU (s)", func(r result) float64 { return r.APIServerCPUSeconds }, "%.1f"},
	{"upgrade", "to the last release Ready (s)", func(r result) float64 { return r.Seconds }, "%.1f"},
	{"upgrade", "API requests", func(r result) float64 { return float64(r.Requests.Total) }, "%.0f"},
	{"upgrade", "tool CPU (s)", func(r result) float64 { return r.CPUSeconds }, "%.1f"},
	{"upgrade", "kube-apiserver CPU (s)", func(r result) float64 { return r.APIServerCPUSeconds }, "%.1f"},
	{"idle", "API requests per minute", func(r result) float64 { return float64(r.Requests.Total) / (r.WindowSeconds / 60) }, "%.1f"},
	{"idle", "tool CPU (s)", func(r result) float64 { return r.CPUSeconds }, "%.1f"},
	{"delete", "to every object gone (s)", func(r result) float64 { return r.Seconds }, "%.1f"},
	{"delete", "API requests", func(r result) float64 { return float64(r.Requests.Total) }, "%.0f"},
	{"delete", "tool CPU (s)", func(r result) float64 { return r.CPUSeconds }, "%.1f"},
	{"delete", "peak RSS (MiB)", func(r result) float64 { return r.PeakRSSMiB }, "%.0f"},
}

// markdownTable prints the figures side by side with the ratio of the
// first tool to helm-controller.
func markdownTable(results []result) string {
	tools := []string{}
	byKey := map[string]result{}
	for _, r := range results {
		if _, ok := byKey[r.Tool+"/"+r.Scenario]; !ok && !contains(tools, r.Tool) {
			tools = append(tools, r.Tool)
		}
		byKey[r.Tool+"/"+r.Scenario] = r
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| scenario | figure | %s |", strings.Join(tools, " | "))
	// The ratio is the first tool's to helm-controller's, wherever it is.
	peer := slices.Index(tools, "helm-controller")
	ratio := peer > 0
	if ratio {
		fmt.Fprintf(&b, " %s ÷ helm-controller |", tools[0])
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---:|", len(tools)))
	if ratio {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, row := range tableRows {
		fmt.Fprintf(&b, "| %s | %s |", row.scenario, row.figure)
		var values []float64
		for _, t := range tools {
			r, ok := byKey[t+"/"+row.scenario]
			if !ok {
				b.WriteString(" – |")
				values = append(values, 0)
				continue
			}
			v := row.value(r)
			values = append(values, v)
			fmt.Fprintf(&b, " "+row.format+" |", v)
		}
		if ratio {
			if values[peer] == 0 {
				b.WriteString(" – |")
			} else {
				fmt.Fprintf(&b, " %.2f |", values[0]/values[peer])
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
