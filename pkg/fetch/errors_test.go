package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

var _ = Describe("Errors", func() {
	DescribeTable("IsTransient",
		func(err error, transient bool) {
			Expect(fetch.IsTransient(err)).To(Equal(transient))
		},
		Entry("nil", nil, false),
		Entry("HTTP 500", &fetch.HTTPError{URL: "u", StatusCode: 500}, true),
		Entry("HTTP 429", fmt.Errorf("x: %w", &fetch.HTTPError{URL: "u", StatusCode: 429}), true),
		Entry("HTTP 404", &fetch.HTTPError{URL: "u", StatusCode: 404}, false),
		Entry("a timeout", fmt.Errorf("fetching u: %w", context.DeadlineExceeded), true),
		Entry("a cancellation", fmt.Errorf("fetching u: %w", context.Canceled), false),
		Entry("a refused login", &fetch.AuthError{URL: "u", StatusCode: 403}, false),
		Entry("a digest mismatch", &fetch.DigestMismatchError{URL: "u"}, false),
		Entry("a version not found", &fetch.VersionNotFoundError{Chart: "web"}, false),
		Entry("anything else", errors.New("boom"), false),
	)

	It("lists no available version as none", func() {
		err := &fetch.VersionNotFoundError{Chart: "web", Constraint: "1.x", Repository: "oci://r/charts"}
		Expect(err).To(MatchError(`chart web: no version matches "1.x" in oci://r/charts; available: none`))
	})

	It("says a download that takes too long timed out, as transient", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // never answers
		}))
		DeferCleanup(srv.Close)
		f, _ := newFetcher(fetch.WithTimeout(50 * time.Millisecond))
		_, err := f.Chart(context.Background(), fetch.ChartRequest{Repository: srv.URL, Name: "web"})
		Expect(err).To(MatchError(ContainSubstring("fetching " + srv.URL + "/index.yaml: ")))
		Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue(), "%v", err)
		Expect(fetch.IsTransient(err)).To(BeTrue())
	})
})
