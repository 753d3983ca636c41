package notifiers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// Slack posts to a Slack incoming webhook: a text (what notifications
// and clients without blocks show) and blocks (a section with the title
// and message, a context line with generation, revision and trace ID).
type Slack struct {
	// URL is the incoming webhook's URL, which is its credential.
	URL string
	// Channel and Username override the webhook's, where Slack still
	// allows it (legacy webhooks); empty leaves them out.
	Channel, Username string
	// Client sends the request (default DefaultClient).
	Client *http.Client
}

// slackMessage is the body of a post.
type slackMessage struct {
	Text     string       `json:"text"`
	Blocks   []slackBlock `json:"blocks"`
	Channel  string       `json:"channel,omitempty"`
	Username string       `json:"username,omitempty"`
}

type slackBlock struct {
	Type     string      `json:"type"`
	Text     *slackText  `json:"text,omitempty"`
	Elements []slackText `json:"elements,omitempty"`
}

type slackText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Notify posts e.
func (s *Slack) Notify(ctx context.Context, e notify.Event) error {
	body, err := json.Marshal(SlackMessage(e, s.Channel, s.Username))
	if err != nil {
		return notify.Permanent(fmt.Errorf("encoding the Slack message: %w", err))
	}
	_, err = send(ctx, s.Client, request{method: http.MethodPost, url: s.URL, header: jsonHeader("application/json", e), body: body})
	return err
}

// SlackMessage is the body Slack gets for e.
func SlackMessage(e notify.Event, channel, username string) any {
	icon := ":large_green_circle:"
	if e.Severity == notify.SeverityError {
		icon = ":red_circle:"
	}
	title, message := slackEscape(e.Title()), slackEscape(e.Message)
	return slackMessage{
		Text:    title + ": " + message,
		Channel: channel, Username: username,
		Blocks: []slackBlock{
			{Type: "section", Text: &slackText{Type: "mrkdwn", Text: icon + " *" + title + "*\n" + message}},
			{Type: "context", Elements: []slackText{{Type: "mrkdwn", Text: slackEscape(details(e, " · "))}}},
		},
	}
}

// slackEscape escapes what Slack's mrkdwn reads as markup: &, < and >.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// details lists the generation, revision, trace ID and operator of e,
// those it has, joined by sep.
func details(e notify.Event, sep string) string {
	var parts []string
	for _, f := range facts(e) {
		parts = append(parts, strings.ToLower(f.Title)+" "+f.Value)
	}
	return strings.Join(parts, sep)
}

// fact is one detail of an event, named.
type fact struct {
	Title string `json:"title"`
	Value string `json:"value"`
}

// facts are the details of e that it has, in a fixed order.
func facts(e notify.Event) []fact {
	var out []fact
	add := func(title, value string) {
		if value != "" && value != "0" {
			out = append(out, fact{Title: title, Value: value})
		}
	}
	add("Generation", fmt.Sprint(e.Generation))
	add("Revision", e.Revision)
	add("Trace", e.TraceID)
	add("Operator", e.Operator)
	return out
}
