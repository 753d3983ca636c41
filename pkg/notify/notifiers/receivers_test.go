package notifiers_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/webhooktest"
)

// newReceiver starts a receiver for the spec.
func newReceiver() *webhooktest.Server {
	r := webhooktest.New()
	DeferCleanup(r.Close)
	return r
}

// last is the last request r got, with its body decoded as JSON.
func last(r *webhooktest.Server) (webhooktest.Request, map[string]any) {
	GinkgoHelper()
	requests := r.Requests()
	Expect(requests).NotTo(BeEmpty())
	got := requests[len(requests)-1]
	var body map[string]any
	Expect(json.Unmarshal(got.Body, &body)).To(Succeed(), "the body is JSON: %s", got.Body)
	return got, body
}
