package receiver

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// stubSource is one Receiver with a token.
type stubSource struct {
	r      *v1alpha1.Receiver
	secret []byte
}

func (s *stubSource) find(_ context.Context, path string) (*v1alpha1.Receiver, error) {
	if s.r == nil || path != s.r.Status.WebhookPath {
		return nil, nil
	}
	return s.r.DeepCopy(), nil
}

func (s *stubSource) token(context.Context, *v1alpha1.Receiver) ([]byte, error) {
	if s.secret == nil {
		return nil, errNoToken
	}
	return s.secret, nil
}

// stubAsker counts what it is asked and fails while fail is set.
type stubAsker struct {
	asked int
	fail  bool
}

func (a *stubAsker) ask(context.Context, *v1alpha1.Receiver, []string) (int, error) {
	if a.fail {
		return 0, errors.New("the API server is away")
	}
	a.asked++
	return 1, nil
}

// fixture is a github Receiver behind the handler, at a time that does not
// move unless a test moves it.
type fixture struct {
	hooks  *webhooks
	source *stubSource
	asker  *stubAsker
	now    time.Time
	path   string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	token := []byte("s3cret")
	r := &v1alpha1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "github", UID: "u1"},
		Spec: v1alpha1.ReceiverSpec{Type: v1alpha1.ReceiverGitHub, Events: []string{"push"}}}
	r.Status.WebhookPath = webhookPath(token, r.Name, r.Namespace)
	limits, err := newLimits()
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{source: &stubSource{r: r, secret: token}, asker: &stubAsker{}, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), path: r.Status.WebhookPath}
	f.hooks = &webhooks{source: f.source, asker: f.asker, limits: limits, replays: newReplays(), now: func() time.Time { return f.now }, log: logr.Discard()}
	return f
}

// post sends body to path, signed with key as GitHub signs, as event with
// delivery ID id, and returns the code.
func (f *fixture) post(path, event, id string, key, body []byte) int {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(body)))
	req.Header.Set(headerGitHubSignature, sign("sha256", sha256.New, key, body))
	req.Header.Set(headerGitHubEvent, event)
	req.Header.Set(headerGitHubDelivery, id)
	rec := httptest.NewRecorder()
	f.hooks.ServeHTTP(rec, req)
	return rec.Code
}

func TestWebhooksVerifyFilterAndForgetNothing(t *testing.T) {
	f := newFixture(t)
	key, body := []byte("s3cret"), []byte(`{"after":"a1"}`)
	check := func(what string, code, want, asked int) {
		t.Helper()
		if code != want || f.asker.asked != asked {
			t.Errorf("%s: %d and %d asked, want %d and %d", what, code, f.asker.asked, want, asked)
		}
	}
	check("a bad signature", f.post(f.path, "push", "d0", []byte("guess"), body), http.StatusUnauthorized, 0)
	check("an unknown path", f.post(f.path+"0", "push", "d0", key, body), http.StatusNotFound, 0)
	check("an event it does not want", f.post(f.path, "ping", "d0", key, body), http.StatusOK, 0)
	check("a push", f.post(f.path, "push", "d1", key, body), http.StatusOK, 1)
	check("the same delivery again", f.post(f.path, "push", "d1", key, body), http.StatusOK, 1)
	check("the same signed body as another delivery", f.post(f.path, "push", "d2", key, body), http.StatusOK, 1)
	check("a delivery ID seen before with another body", f.post(f.path, "push", "d1", key, []byte(`{"after":"b2"}`)), http.StatusOK, 1)

	f.asker.fail = true
	check("a push that fails", f.post(f.path, "push", "d3", key, []byte(`{"after":"c3"}`)), http.StatusInternalServerError, 1)
	f.asker.fail = false
	check("its retry", f.post(f.path, "push", "d3", key, []byte(`{"after":"c3"}`)), http.StatusOK, 2)

	f.source.secret = []byte("rotated")
	check("the path of the old token", f.post(f.path, "push", "d4", []byte("rotated"), []byte(`{"after":"d4"}`)), http.StatusNotFound, 2)
	f.source.secret = nil
	check("a Receiver without a token", f.post(f.path, "push", "d4", key, []byte(`{"after":"d4"}`)), http.StatusServiceUnavailable, 2)
	f.source.secret = key
	f.source.r.Spec.Suspend = true
	check("a suspended Receiver", f.post(f.path, "push", "d4", key, []byte(`{"after":"d4"}`)), http.StatusServiceUnavailable, 2)
}

func TestWebhooksBoundBodiesAndMethods(t *testing.T) {
	f := newFixture(t)
	big := []byte(`{"pad":"` + strings.Repeat("x", maxBodyBytes) + `"}`)
	if code := f.post(f.path, "push", "big", []byte("s3cret"), big); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit: %d", code)
	}
	// Without a Content-Length the reader stops at the limit too.
	req := httptest.NewRequest(http.MethodPost, f.path, strings.NewReader(string(big)))
	req.ContentLength = -1
	rec := httptest.NewRecorder()
	f.hooks.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit without a length: %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	f.hooks.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, f.path, nil))
	if rec.Code != http.StatusMethodNotAllowed || f.asker.asked != 0 {
		t.Errorf("GET: %d, %d asked", rec.Code, f.asker.asked)
	}
}

func TestWebhooksRateLimits(t *testing.T) {
	f := newFixture(t)
	key := []byte("s3cret")
	codes := map[int]int{}
	for i := range receiverBurst + 5 {
		codes[f.post(f.path, "push", fmt.Sprint(i), key, []byte(fmt.Sprintf(`{"n":%d}`, i)))]++
	}
	if codes[http.StatusOK] != receiverBurst || codes[http.StatusTooManyRequests] != 5 || f.asker.asked != receiverBurst {
		t.Errorf("one Receiver's flood at one instant: %v, %d asked; want %d asked and 5 refused", codes, f.asker.asked, receiverBurst)
	}
	f.now = f.now.Add(time.Second / receiverRate)
	if code := f.post(f.path, "push", "later", key, []byte(`{"n":"later"}`)); code != http.StatusOK {
		t.Errorf("a second later: %d", code)
	}
	refused := 0
	for i := range allBurst + 5 {
		if f.post(f.path+"0", "push", fmt.Sprint(i), key, nil) == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused == 0 {
		t.Error("a flood of unverified requests at one instant is never refused")
	}
}
