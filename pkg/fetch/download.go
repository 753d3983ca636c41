package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"go.opentelemetry.io/otel/attribute"

	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// download GETs rawURL with creds' login or token, if any, and writes the body to
// w: at most f.maxSize bytes, within f.timeout. A status other than 200
// is an AuthError (401, 403) or an HTTPError.
func (f *Fetcher) download(ctx context.Context, client *http.Client, rawURL string, creds *Credentials, w io.Writer) error {
	ctx, span := startSpan(ctx, "GET")
	if span.IsRecording() {
		span.SetAttributes(attribute.String("http.request.method", http.MethodGet), attribute.String("url.full", redact(rawURL)))
	}
	err := f.get(ctx, client, rawURL, creds, w)
	spans.End(span, err)
	return err
}

func (f *Fetcher) get(ctx context.Context, client *http.Client, rawURL string, creds *Credentials, w io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	shown := redact(rawURL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fmt.Errorf("fetching %s: %w", shown, err)
	}
	switch {
	case creds.hasLogin() && creds.Token != "":
		req.Header.Set("Authorization", "Bearer "+creds.Token)
	case creds.hasLogin():
		req.SetBasicAuth(creds.Username, creds.Password)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("fetching %s: %w", shown, unwrapURLError(err))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return &AuthError{URL: shown, StatusCode: resp.StatusCode, Anonymous: !creds.hasLogin()}
	case resp.StatusCode != http.StatusOK:
		return &HTTPError{URL: shown, StatusCode: resp.StatusCode}
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, f.maxSize+1))
	if err != nil {
		return fmt.Errorf("fetching %s: %w", shown, unwrapURLError(err))
	}
	if n > f.maxSize {
		return &SizeLimitError{URL: shown, What: "download", Limit: f.maxSize}
	}
	return nil
}

// unwrapURLError drops the *url.Error around a client error: it repeats the
// URL the message already names.
func unwrapURLError(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err
	}
	return err
}
