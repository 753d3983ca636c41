package notifiers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// UserAgent is the User-Agent of every request.
const UserAgent = "wavekit-notify/1"

// maxAnswerBytes bounds how much of a receiver's answer is read, and
// quoted in an error.
const (
	maxAnswerBytes = 64 << 10
	maxQuotedBytes = 200
)

// DefaultClient sends the requests of a notifier without a Client: the
// environment's proxy, and no redirect followed (a webhook that redirects
// would take the request, and its credentials, elsewhere).
var DefaultClient = &http.Client{
	Transport:     http.DefaultTransport,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// request is one HTTP request of a notifier.
type request struct {
	method string
	url    string
	header http.Header
	body   []byte
}

// send makes the request with client and returns the answer's body, at
// most maxAnswerBytes of it. Its errors name the receiver by scheme and
// host only: the path and query of a Slack or Teams webhook URL are its
// credential. An answer of 408, 429 or 5xx, or no answer, is worth
// another try; any other answer but 2xx is Permanent.
func send(ctx context.Context, client *http.Client, r request) ([]byte, error) {
	if client == nil {
		client = DefaultClient
	}
	where := Redact(r.url)
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, bytes.NewReader(r.body))
	if err != nil {
		return nil, notify.Permanent(fmt.Errorf("%s %s: %w", r.method, where, redactError(err)))
	}
	for key, values := range r.header {
		req.Header[key] = values
	}
	req.Header.Set("User-Agent", UserAgent)
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, where, redactError(err))
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", r.method, where, redactError(err))
	}
	if resp.StatusCode/100 == 2 {
		return answer, nil
	}
	err = fmt.Errorf("%s %s: the receiver answered %s%s", r.method, where, resp.Status, quote(answer))
	switch {
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusRequestTimeout, resp.StatusCode >= 500:
		return nil, err
	}
	return nil, notify.Permanent(err)
}

// Redact is the scheme and host of a URL, what an error or a log may say
// of it: "https://hooks.slack.com". A URL that does not parse is
// "the receiver's URL".
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "the receiver's URL"
	}
	return u.Scheme + "://" + u.Host
}

// redactError is err without the URL that net/http puts in its errors.
func redactError(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err
	}
	return err
}

// quote is the start of a receiver's answer on one line, for an error.
func quote(answer []byte) string {
	text := strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, string(answer))
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return ""
	}
	return ": " + notify.Bound(text, maxQuotedBytes)
}

// jsonHeader is the header of a JSON body with the event's kind.
func jsonHeader(contentType string, e notify.Event) http.Header {
	h := http.Header{}
	h.Set("Content-Type", contentType)
	h.Set("X-Wavekit-Event", string(e.Kind))
	return h
}
