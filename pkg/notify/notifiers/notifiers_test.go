package notifiers_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/notify"
	"github.com/wavekit-dev/wavekit/pkg/notify/notifiers"
)

const (
	traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	commit  = "0123456789abcdef0123456789abcdef01234567"
)

func failed() notify.Event {
	return notify.Event{
		Kind: notify.KindFailed, Severity: notify.SeverityError, Reason: "Error",
		Message:    "applying: Secret shop/web-credentials: the API server refused <it> & more",
		Object:     notify.Object{APIVersion: "wavekit.dev/v1alpha1", Kind: "Component", Namespace: "shop", Name: "web", UID: "u-1"},
		Generation: 3, Revision: "main@sha1:" + commit, TraceID: traceID, Operator: "wavekit.dev",
		Time: time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC),
	}
}

func ready() notify.Event {
	e := failed()
	e.Kind, e.Severity, e.Reason, e.Message = notify.KindReady, notify.SeverityInfo, "Ready", "every object is applied and ready"
	return e
}

var _ = Describe("the generic webhook", func() {
	ctx := context.Background()

	It("posts the event as JSON: what happened, the object, the reason, the trace ID", func() {
		r := newReceiver()
		Expect((&notifiers.Webhook{URL: r.URL + "/hook"}).Notify(ctx, failed())).To(Succeed())
		got, body := last(r)
		Expect(got.Method).To(Equal(http.MethodPost))
		Expect(got.Header.Get("Content-Type")).To(Equal("application/json"))
		Expect(got.Header.Get("X-Wavekit-Event")).To(Equal("Failed"))
		Expect(got.Header.Get(notifiers.SignatureHeader)).To(BeEmpty())
		Expect(body).To(HaveKeyWithValue("kind", "Failed"))
		Expect(body).To(HaveKeyWithValue("severity", "error"))
		Expect(body).To(HaveKeyWithValue("reason", "Error"))
		Expect(body).To(HaveKeyWithValue("traceID", traceID))
		Expect(body).To(HaveKeyWithValue("revision", "main@sha1:"+commit))
		Expect(body["object"]).To(HaveKeyWithValue("name", "web"))
		Expect(body["object"]).To(HaveKeyWithValue("namespace", "shop"))
	})

	It("signs the body with HMAC-SHA256 as Flux's generic-hmac does, and sends a token as a bearer", func() {
		r := newReceiver()
		key := []byte("the-hmac-key")
		Expect((&notifiers.Webhook{URL: r.URL, HMACKey: key, Token: "the-token"}).Notify(ctx, failed())).To(Succeed())
		got, _ := last(r)
		signature := got.Header.Get(notifiers.SignatureHeader)
		Expect(signature).To(MatchRegexp(`^sha256=[0-9a-f]{64}$`))
		Expect(notifiers.Verify(got.Body, key, signature)).To(BeTrue())
		Expect(notifiers.Verify(got.Body, []byte("another key"), signature)).To(BeFalse())
		Expect(notifiers.Verify(append(got.Body, ' '), key, signature)).To(BeFalse(), "a changed body fails")
		Expect(got.Header.Get("Authorization")).To(Equal("Bearer the-token"))
		Expect(string(got.Body)).NotTo(ContainSubstring("the-hmac-key"))
	})
})

var _ = Describe("Slack", func() {
	It("posts a text and blocks with the title, the message escaped, and the details", func() {
		r := newReceiver()
		Expect((&notifiers.Slack{URL: r.URL + "/services/T0/B0/secretpath", Channel: "#ops"}).Notify(context.Background(), failed())).To(Succeed())
		got, body := last(r)
		Expect(got.Path).To(Equal("/services/T0/B0/secretpath"))
		Expect(body).To(HaveKeyWithValue("channel", "#ops"))
		Expect(body["text"]).To(Equal("Component shop/web: Failed (Error): applying: Secret shop/web-credentials: the API server refused &lt;it&gt; &amp; more"))
		blocks := body["blocks"].([]any)
		Expect(blocks).To(HaveLen(2))
		Expect(blocks[0]).To(HaveKeyWithValue("type", "section"))
		Expect(blocks[0].(map[string]any)["text"]).To(HaveKeyWithValue("text", ContainSubstring(":red_circle: *Component shop/web: Failed (Error)*")))
		context := blocks[1].(map[string]any)["elements"].([]any)[0].(map[string]any)["text"]
		Expect(context).To(Equal("generation 3 · revision main@sha1:" + commit + " · trace " + traceID + " · operator wavekit.dev"))
	})
})

var _ = Describe("Microsoft Teams", func() {
	It("posts an Adaptive Card 1.4 in a message envelope", func() {
		r := newReceiver()
		r.Answer(http.StatusAccepted, "") // what a workflow answers
		Expect((&notifiers.Teams{URL: r.URL + "/workflows/x"}).Notify(context.Background(), failed())).To(Succeed())
		_, body := last(r)
		Expect(body).To(HaveKeyWithValue("type", "message"))
		attachment := body["attachments"].([]any)[0].(map[string]any)
		Expect(attachment).To(HaveKeyWithValue("contentType", "application/vnd.microsoft.card.adaptive"))
		card := attachment["content"].(map[string]any)
		Expect(card).To(HaveKeyWithValue("type", "AdaptiveCard"))
		Expect(card).To(HaveKeyWithValue("version", "1.4"))
		items := card["body"].([]any)
		Expect(items[0]).To(And(HaveKeyWithValue("text", "Component shop/web: Failed (Error)"), HaveKeyWithValue("color", "Attention")))
		Expect(items[1]).To(HaveKeyWithValue("text", failed().Message))
		Expect(items[2].(map[string]any)["facts"]).To(ContainElements(
			map[string]any{"title": "What", "value": "Failed"},
			map[string]any{"title": "Reason", "value": "Error"},
			map[string]any{"title": "Trace", "value": traceID},
		))
	})
})

var _ = Describe("CloudEvents", func() {
	It("posts a CloudEvent 1.0 in structured mode, with one ID for each try of an event", func() {
		r := newReceiver()
		n := &notifiers.CloudEvents{URL: r.URL}
		Expect(n.Notify(context.Background(), failed())).To(Succeed())
		got, body := last(r)
		Expect(got.Header.Get("Content-Type")).To(Equal(notifiers.CloudEventsContentType))
		Expect(body).To(HaveKeyWithValue("specversion", "1.0"))
		Expect(body).To(HaveKeyWithValue("type", "dev.wavekit.component.failed"))
		Expect(body).To(HaveKeyWithValue("source", "/apis/wavekit.dev/v1alpha1/namespaces/shop/components/web"))
		Expect(body).To(HaveKeyWithValue("subject", "shop/web"))
		Expect(body).To(HaveKeyWithValue("datacontenttype", "application/json"))
		Expect(body).To(HaveKeyWithValue("traceid", traceID))
		Expect(body["data"]).To(And(HaveKeyWithValue("reason", "Error"), HaveKeyWithValue("traceID", traceID)))
		id := body["id"]
		Expect(id).To(MatchRegexp(`^[0-9a-f]{32}$`))

		Expect(n.Notify(context.Background(), failed())).To(Succeed())
		_, again := last(r)
		Expect(again["id"]).To(Equal(id), "a retry keeps the ID")
		Expect(n.Notify(context.Background(), ready())).To(Succeed())
		_, other := last(r)
		Expect(other["id"]).NotTo(Equal(id))
	})
})

var _ = Describe("errors", func() {
	ctx := context.Background()

	It("retries what a retry may mend, and not what the receiver refuses", func() {
		r := newReceiver()
		n := &notifiers.Slack{URL: r.URL + "/services/T0/B0/secretpath"}
		for status, permanent := range map[int]bool{
			http.StatusServiceUnavailable: false, http.StatusTooManyRequests: false, http.StatusRequestTimeout: false,
			http.StatusNotFound: true, http.StatusForbidden: true, http.StatusBadRequest: true,
		} {
			r.Answer(status, `{"answer":"from the receiver"}`)
			err := n.Notify(ctx, failed())
			Expect(err).To(HaveOccurred())
			Expect(notify.IsPermanent(err)).To(Equal(permanent), "status %d", status)
			Expect(err.Error()).To(ContainSubstring(http.StatusText(status)))
			Expect(err.Error()).To(ContainSubstring("from the receiver"), "the answer is quoted")
			Expect(err.Error()).NotTo(ContainSubstring("secretpath"), "the URL's path is the credential")
		}
	})

	It("names a receiver that does not answer by its host alone", func() {
		listener, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		address := listener.Addr().String()
		Expect(listener.Close()).To(Succeed()) // nobody listens there now
		err = (&notifiers.Teams{URL: "http://" + address + "/workflows/secretpath?sig=secretquery"}).Notify(ctx, failed())
		Expect(err).To(HaveOccurred())
		Expect(notify.IsPermanent(err)).To(BeFalse())
		Expect(err.Error()).To(ContainSubstring("http://" + address))
		Expect(err.Error()).NotTo(Or(ContainSubstring("secretpath"), ContainSubstring("secretquery")))
	})

	It("follows no redirect", func() {
		target := newReceiver()
		redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusFound))
		DeferCleanup(redirect.Close)
		err := (&notifiers.Webhook{URL: redirect.URL, Token: "the-token"}).Notify(ctx, failed())
		Expect(notify.IsPermanent(err)).To(BeTrue())
		Expect(target.Requests()).To(BeEmpty(), "the request and its token went nowhere else")
	})
})
