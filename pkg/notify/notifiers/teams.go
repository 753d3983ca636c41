package notifiers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// Teams posts an Adaptive Card (version 1.4) to a Microsoft Teams
// incoming webhook of a Workflow, in the message envelope Teams expects.
// Office 365 connectors, and their MessageCards, were retired in 2026.
type Teams struct {
	// URL is the workflow's webhook URL, which is its credential.
	URL string
	// Client sends the request (default DefaultClient).
	Client *http.Client
}

// Notify posts e.
func (t *Teams) Notify(ctx context.Context, e notify.Event) error {
	body, err := json.Marshal(TeamsMessage(e))
	if err != nil {
		return notify.Permanent(fmt.Errorf("encoding the Teams card: %w", err))
	}
	_, err = send(ctx, t.Client, request{method: http.MethodPost, url: t.URL, header: jsonHeader("application/json", e), body: body})
	return err
}

// TeamsMessage is the body Teams gets for e: a message with one Adaptive
// Card attached, its title (red for an error), the message and a fact
// set of what happened, the reason, generation, revision and trace ID.
func TeamsMessage(e notify.Event) map[string]any {
	color := "Good"
	if e.Severity == notify.SeverityError {
		color = "Attention"
	}
	list := append([]fact{{Title: "What", Value: string(e.Kind)}, {Title: "Reason", Value: e.Reason}}, facts(e)...)
	card := map[string]any{
		"$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
		"type":    "AdaptiveCard",
		"version": "1.4",
		"body": []any{
			map[string]any{"type": "TextBlock", "text": e.Title(), "weight": "Bolder", "size": "Medium", "color": color, "wrap": true},
			map[string]any{"type": "TextBlock", "text": e.Message, "wrap": true},
			map[string]any{"type": "FactSet", "facts": list},
		},
	}
	return map[string]any{
		"type": "message",
		"attachments": []any{map[string]any{
			"contentType": "application/vnd.microsoft.card.adaptive",
			"content":     card,
		}},
	}
}
