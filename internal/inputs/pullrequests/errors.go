package pullrequests

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// answerError is the error of an answer that is not 200 or 304: a spent
// rate limit, a token refused (naming its Secret, never the token), a
// repository not found, anything else with its status and message.
func answerError(a api, creds credentials, resp *http.Response, body []byte, now time.Time) error {
	switch resp.StatusCode {
	case http.StatusOK, http.StatusNotModified:
		return nil
	case http.StatusUnauthorized:
		if creds.secret == "" {
			return fmt.Errorf("the API of %s asks for a token to list the pull requests of %s: set secretRef", a.host(), a.repo)
		}
		return fmt.Errorf("the API of %s refused the token of Secret %s (401)", a.host(), creds.secret)
	case http.StatusNotFound:
		return fmt.Errorf("%s %s: no such repository, or the token cannot see it (404)", a.provider, a.repo)
	}
	if until, spent := resetOf(resp, now); spent {
		return &RateLimitedError{Host: a.host(), Until: until}
	}
	return fmt.Errorf("listing the pull requests of %s on %s: %s: %s", a.repo, a.host(), resp.Status, message(body))
}

// message is the API's message in body, bounded.
func message(body []byte) string {
	text := strings.Join(strings.Fields(string(body)), " ")
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	return text
}

// redact is raw without user information or query, for messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the API"
	}
	u.User, u.RawQuery = nil, ""
	return u.String()
}
