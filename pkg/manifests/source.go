package manifests

import (
	"context"
	"sync"
)

// SourceInfo says where a component's objects were rendered from: the URL
// of a chart or artifact, its revision (a chart version, a Git commit) and
// the digest of what was downloaded.
// +kubebuilder:object:generate=true
type SourceInfo struct {
	// URL the source was fetched from.
	// +optional
	URL string `json:"url,omitempty"`
	// Revision of the source: a chart version, or a Flux artifact's revision.
	// +optional
	Revision string `json:"revision,omitempty"`
	// Digest of what was downloaded, "sha256:<hex>".
	// +optional
	Digest string `json:"digest,omitempty"`
	// Verified says what verified the source before it was rendered: the
	// kind of signature and the key, when the component asks for a
	// verification.
	// +optional
	Verified string `json:"verified,omitempty"`
	// Dependencies are the chart dependencies fetched or loaded for the
	// render (those its charts/ did not hold), with the version of each.
	// +kubebuilder:validation:MaxItems=64
	// +optional
	Dependencies []DependencyInfo `json:"dependencies,omitempty"`
}

// DependencyInfo is a chart dependency brought for a render.
// +kubebuilder:object:generate=true
type DependencyInfo struct {
	// Name is the dependency as its chart names it: its alias, if it has
	// one, after its parent's for a dependency's own (child/grandchild).
	Name string `json:"name"`
	// Chart is the chart's name, when it differs from Name.
	// +optional
	Chart string `json:"chart,omitempty"`
	// Repository is where it came from: the repository's URL, or the
	// file:// path the chart names.
	// +optional
	Repository string `json:"repository,omitempty"`
	// Version is the chart version used.
	Version string `json:"version"`
	// Digest of the archive (or OCI manifest) fetched, "sha256:<hex>".
	// +optional
	Digest string `json:"digest,omitempty"`
	// Verified says what verified it, when the component asks for it.
	// +optional
	Verified string `json:"verified,omitempty"`
}

// sourceReport holds what a generator reported during one render.
type sourceReport struct {
	mu           sync.Mutex
	info         *SourceInfo
	dependencies []DependencyInfo
}

// WithSourceReport returns a context in which a generator may report where
// its objects come from (ReportSource), and a function that returns the
// last report, or nil if the generator made none.
func WithSourceReport(ctx context.Context) (context.Context, func() *SourceInfo) {
	report := &sourceReport{}
	return context.WithValue(ctx, sourceReportKey, report), func() *SourceInfo {
		report.mu.Lock()
		defer report.mu.Unlock()
		if report.dependencies == nil {
			return report.info
		}
		info := SourceInfo{}
		if report.info != nil {
			info = *report.info
		}
		info.Dependencies = report.dependencies
		return &info
	}
}

// ReportSource records, for the caller of the generator, where the objects
// being rendered come from. Without WithSourceReport it does nothing.
func ReportSource(ctx context.Context, info SourceInfo) {
	report, ok := ctx.Value(sourceReportKey).(*sourceReport)
	if !ok {
		return
	}
	report.mu.Lock()
	defer report.mu.Unlock()
	report.info = &info
}

// ReportDependencies records, for the caller of the generator, the chart
// dependencies brought for the render (SourceInfo.Dependencies), beside
// what ReportSource reports. Without WithSourceReport it does nothing.
func ReportDependencies(ctx context.Context, deps []DependencyInfo) {
	report, ok := ctx.Value(sourceReportKey).(*sourceReport)
	if !ok {
		return
	}
	report.mu.Lock()
	defer report.mu.Unlock()
	report.dependencies = append([]DependencyInfo{}, deps...)
}
