package fetch

import (
	"context"
	"fmt"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// Verifier checks who made a chart before the chart is expanded, loaded or
// rendered. Package verify has the implementations (cosign signatures,
// Helm provenance files); this package only calls them.
type Verifier interface {
	// Verify checks the chart s describes and says what it verified with
	// which key, for a status message. Its error says why it could not.
	Verify(ctx context.Context, s Subject) (string, error)
}

// Subject is a chart to verify.
type Subject struct {
	// Source is the chart's OCI reference without tag (host/path/name), or
	// the URL of its archive in a Helm repository.
	Source string
	// Digest is what is verified and then fetched: "sha256:<hex>" of the
	// chart's OCI manifest, or of its archive in a Helm repository.
	Digest string
	// Registry reads the chart's OCI repository with the request's
	// credentials (signatures, referrers); nil for a Helm repository.
	Registry *remote.Repository
	// ArchiveName is the archive's file name (web-1.2.3.tgz), as a
	// provenance file names it; empty for an OCI chart.
	ArchiveName string
	// Archive and Provenance download the chart's archive (checked against
	// Digest) and its provenance file (<archive URL>.prov), each once; nil
	// for an OCI chart. A Verifier that knows the answer already (a cache)
	// need not call them.
	Archive, Provenance func(context.Context) ([]byte, error)
}

// VerificationError says that a chart failed the verification its request
// asked for. Nothing of the chart was stored.
type VerificationError struct {
	// Source and Digest name the chart, as in Subject.
	Source, Digest string
	Err            error
}

func (e *VerificationError) Error() string {
	return fmt.Sprintf("verifying %s@%s: %v", e.Source, e.Digest, e.Err)
}

func (e *VerificationError) Unwrap() error { return e.Err }

// verify runs req's Verifier, if any, on s, under the Fetcher's timeout.
// A network error is returned as it is (IsTransient tells it apart); any
// other failure is a VerificationError.
func (f *Fetcher) verify(ctx context.Context, req ChartRequest, s Subject) (string, error) {
	if req.Verifier == nil {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	ctx, span := startSpan(ctx, "verify")
	verified, err := req.Verifier.Verify(ctx, s)
	if err != nil && !IsTransient(err) {
		verified, err = "", &VerificationError{Source: s.Source, Digest: s.Digest, Err: err}
	}
	if span.IsRecording() {
		span.SetAttributes(attribute.String("url.full", s.Source), attribute.String("wavekit.source.digest", s.Digest),
			attribute.String("wavekit.source.verified", verified))
	}
	spans.End(span, err)
	return verified, err
}

// once returns a function that calls get once and then returns what it
// returned: a download a Verifier and the Fetcher may both want.
func once(get func(context.Context) ([]byte, error)) func(context.Context) ([]byte, error) {
	var (
		mu   sync.Mutex
		done bool
		data []byte
		err  error
	)
	return func(ctx context.Context) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			data, err = get(ctx)
			done = err == nil
		}
		return data, err
	}
}
