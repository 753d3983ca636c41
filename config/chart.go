package config

import "embed"

// Chart is the directory chart: Chart.yaml, values, templates and crds.
//
//go:embed all:chart
var Chart embed.FS
