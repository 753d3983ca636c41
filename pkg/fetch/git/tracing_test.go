package git_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

var _ = Describe("a traced Get", func() {
	It("has a span for the look and one for the fetch, within the caller's span, with no credential", func() {
		spans := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		DeferCleanup(tp.Shutdown)
		traced, render := tp.Tracer("test").Start(ctx, "render")
		repo := newRepo("traced", map[string]string{"f": "x"})
		tree, err := newSource().Get(traced, git.Request{URL: server.HTTPURL(repo.Name), Auth: &git.Auth{Username: "u", Password: "pa55word"}})
		Expect(err).NotTo(HaveOccurred())
		render.End()
		got := map[string]tracetest.SpanStub{}
		for _, s := range spans.GetSpans() {
			got[s.Name] = s
			for _, a := range s.Attributes {
				Expect(a.Value.String()).NotTo(ContainSubstring("pa55word"))
			}
		}
		Expect(got).To(HaveKey("git look"))
		Expect(got).To(HaveKey("git fetch"))
		Expect(got["git look"].Parent.SpanID()).To(Equal(got["render"].SpanContext.SpanID()))
		Expect(got["git fetch"].Attributes).To(ContainElement(HaveField("Value.String()", tree.Revision)))
	})
})
