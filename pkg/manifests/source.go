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
}

// sourceReport holds what a generator reported during one render.
type sourceReport struct {
	mu   sync.Mutex
	info *SourceInfo
}

// WithSourceReport returns a context in which a generator may report where
// its objects come from (ReportSource), and a function that returns the
// last report, or nil if the generator made none.
func WithSourceReport(ctx context.Context) (context.Context, func() *SourceInfo) {
	report := &sourceReport{}
	return context.WithValue(ctx, sourceReportKey, report), func() *SourceInfo {
		report.mu.Lock()
		defer report.mu.Unlock()
		return report.info
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
