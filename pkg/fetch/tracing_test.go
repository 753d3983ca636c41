package fetch_test

import (
	"archive/tar"
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

var _ = Describe("a traced fetch", func() {
	It("has a span for the fetch and one for its download, within the caller's span, with the URL's credentials left out", func() {
		spans := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		DeferCleanup(tp.Shutdown)
		ctx, render := tp.Tracer("test").Start(context.Background(), "render")

		data := tarGz(tarEntry{name: "./", typeflag: tar.TypeDir}, file("kustomization.yaml", "resources: []\n"))
		srv, _ := serveFiles(map[string][]byte{"/a.tar.gz": data})
		f, _ := newFetcher()
		url := strings.Replace(srv.URL, "http://", "http://user:pa55word@", 1) + "/a.tar.gz"
		_, err := f.Artifact(ctx, fetch.ArtifactRequest{URL: url, Digest: sha256Of(data), Revision: "main@sha1:abc"})
		Expect(err).NotTo(HaveOccurred())
		render.End()

		got := map[string]tracetest.SpanStub{}
		for _, s := range spans.GetSpans() {
			got[s.Name] = s
			for _, a := range s.Attributes {
				Expect(a.Value.Emit()).NotTo(ContainSubstring("pa55word"))
			}
		}
		Expect(got).To(HaveKey("fetch artifact"))
		Expect(got).To(HaveKey("GET"))
		Expect(got["fetch artifact"].Parent.SpanID()).To(Equal(got["render"].SpanContext.SpanID()))
		Expect(got["GET"].Parent.SpanID()).To(Equal(got["fetch artifact"].SpanContext.SpanID()))
	})

	It("has a span for each request to an OCI registry, within the chart's fetch", func() {
		spans := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		DeferCleanup(tp.Shutdown)
		ctx, render := tp.Tracer("test").Start(context.Background(), "render")
		reg := newOCIRegistry("", "")
		reg.push("web", "1.0.0")
		f, _ := newFetcher()
		got, err := f.Chart(ctx, fetch.ChartRequest{Repository: reg.repository(), Name: "web", Insecure: true})
		Expect(err).NotTo(HaveOccurred())
		render.End()

		var fetchSpan tracetest.SpanStub
		var requests []tracetest.SpanStub
		for _, s := range spans.GetSpans() {
			switch s.Name {
			case "fetch chart":
				fetchSpan = s
			case "GET", "HEAD":
				requests = append(requests, s)
			}
		}
		Expect(fetchSpan.Attributes).To(ContainElement(HaveField("Value", HaveField("AsString()", got.Digest))))
		Expect(requests).NotTo(BeEmpty())
		for _, r := range requests {
			Expect(r.Parent.TraceID()).To(Equal(fetchSpan.SpanContext.TraceID()))
		}
	})
})
