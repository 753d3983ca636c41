// Command benchplot draws docs/benchmarks-scale.png from the JSON that
// `make bench-scale` writes: what one Component costs the operator — its
// settled memory, the CPU of its install and of a pass that changes
// nothing — against the number of Components, one panel each.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// result is the part of test/bench's scaleResult the plot reads.
type result struct {
	Components int    `json:"components"`
	Shards     int    `json:"shards"`
	Deployment bool   `json:"deployment"`
	Args       string `json:"operatorArgs"`
	Idled      struct {
		RSSMiB []float64 `json:"rssMiB"`
	} `json:"idled"`
	Install phase `json:"install"`
	Resync  phase `json:"resync"`
}

type phase struct {
	CPU        []float64 `json:"cpuSeconds"`
	Reconciles float64   `json:"reconciles"`
}

// panel is one figure per Component, computed from a result.
type panel struct {
	title, unit string
	value       func(result) float64
}

var panels = []panel{
	{"settled RSS per Component", "KiB", func(r result) float64 { return sum(r.Idled.RSSMiB) * 1024 / float64(r.Components) }},
	{"install CPU per Component", "ms", func(r result) float64 { return sum(r.Install.CPU) * 1000 / float64(r.Components) }},
	{"CPU of a pass that changes nothing", "ms", func(r result) float64 { return sum(r.Resync.CPU) * 1000 / r.Resync.Reconciles }},
}

func main() {
	in := flag.String("in", "docs/benchmarks-scale.json", "the results of make bench-scale")
	out := flag.String("out", "docs/benchmarks-scale.png", "the PNG to write")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "benchplot:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return fmt.Errorf("reading the results: %w", err)
	}
	var results []result
	if err := json.Unmarshal(data, &results); err != nil {
		return fmt.Errorf("decoding %s: %w", in, err)
	}
	series := bySeries(results)
	img := vgimg.New(vg.Length(len(panels))*9*vg.Centimeter, 8*vg.Centimeter)
	canvas := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Centimeter, PadY: vg.Millimeter * 3, PadTop: vg.Millimeter * 3, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 3}
	for i, p := range panels {
		plt, err := draw1(p, series)
		if err != nil {
			return err
		}
		plt.Draw(tiles.At(canvas, i, 0))
	}
	file, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("writing the plot: %w", err)
	}
	defer file.Close()
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(file); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return nil
}

// bySeries groups the results of the small chart with the operator's
// default flags by their number of shards, each sorted by R.
func bySeries(results []result) map[string][]result {
	series := map[string][]result{}
	for _, r := range results {
		if r.Deployment || r.Args != "" || r.Resync.Reconciles == 0 {
			continue
		}
		name := "1 replica"
		if r.Shards > 1 {
			name = fmt.Sprintf("%d shard replicas (sum)", r.Shards)
		}
		series[name] = append(series[name], r)
	}
	for _, rs := range series {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Components < rs[j].Components })
	}
	return series
}

// draw1 is one panel: p's figure against R, a line per series.
func draw1(p panel, series map[string][]result) (*plot.Plot, error) {
	plt := plot.New()
	plt.Title.Text = p.title
	plt.X.Label.Text = "Components (R)"
	plt.Y.Label.Text = p.unit
	plt.X.Scale = plot.LogScale{}
	plt.Y.Min = 0
	names := make([]string, 0, len(series))
	for name := range series {
		names = append(names, name)
	}
	sort.Strings(names)
	var lines []any
	var ticks []plot.Tick
	for _, name := range names {
		points := plotter.XYs{}
		for _, r := range series[name] {
			points = append(points, plotter.XY{X: float64(r.Components), Y: p.value(r)})
			ticks = append(ticks, plot.Tick{Value: float64(r.Components), Label: fmt.Sprint(r.Components)})
		}
		lines = append(lines, name, points)
	}
	if err := plotutil.AddLinePoints(plt, lines...); err != nil {
		return nil, fmt.Errorf("plotting %s: %w", p.title, err)
	}
	plt.X.Tick.Marker = plot.ConstantTicks(ticks)
	plt.Legend.Top = true
	return plt, nil
}

func sum(values []float64) float64 {
	total := 0.0
	for _, v := range values {
		total += v
	}
	return total
}
