package notifiers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// CloudEventsContentType is the Content-Type of a CloudEvent in structured
// mode.
const CloudEventsContentType = "application/cloudevents+json"

// CloudEvents posts the event as a CloudEvent 1.0 over HTTP in structured
// mode: the whole CloudEvent, attributes and data, is the JSON body, so
// that it survives proxies that drop headers and is read as one document
// (the binary mode's ce-* headers are left out).
type CloudEvents struct {
	// URL receives the POST.
	URL string
	// Token, when set, goes in "Authorization: Bearer <token>".
	Token string
	// Client sends the request (default DefaultClient).
	Client *http.Client
}

// CloudEvent is a CloudEvent 1.0 as its JSON format writes it.
type CloudEvent struct {
	SpecVersion     string       `json:"specversion"`
	ID              string       `json:"id"`
	Source          string       `json:"source"`
	Type            string       `json:"type"`
	Subject         string       `json:"subject"`
	Time            time.Time    `json:"time"`
	DataContentType string       `json:"datacontenttype"`
	Data            notify.Event `json:"data"`
	// TraceID is an extension attribute: the trace ID of the reconcile.
	TraceID string `json:"traceid,omitempty"`
}

// Notify posts e.
func (c *CloudEvents) Notify(ctx context.Context, e notify.Event) error {
	body, err := json.Marshal(NewCloudEvent(e))
	if err != nil {
		return notify.Permanent(fmt.Errorf("encoding the CloudEvent: %w", err))
	}
	header := jsonHeader(CloudEventsContentType, e)
	if c.Token != "" {
		header.Set("Authorization", "Bearer "+c.Token)
	}
	_, err = send(ctx, c.Client, request{method: http.MethodPost, url: c.URL, header: header, body: body})
	return err
}

// NewCloudEvent is e as a CloudEvent: type dev.wavekit.<object
// kind>.<what happened> in lower case (dev.wavekit.component.failed),
// source the object's API path (/apis/wavekit.dev/v1alpha1/namespaces/
// shop/components/web), subject namespace/name, and an ID that is the
// same for each try of one event, so that a receiver can tell a retry.
func NewCloudEvent(e notify.Event) CloudEvent {
	o := e.Object
	resource := strings.ToLower(o.Kind) + "s"
	id := sha256.Sum256([]byte(e.Key() + "\x00" + strconv.FormatInt(e.Time.UnixNano(), 10)))
	return CloudEvent{
		SpecVersion:     "1.0",
		ID:              hex.EncodeToString(id[:16]),
		Source:          "/apis/" + o.APIVersion + "/namespaces/" + o.Namespace + "/" + resource + "/" + o.Name,
		Type:            "dev.wavekit." + strings.ToLower(o.Kind) + "." + strings.ToLower(string(e.Kind)),
		Subject:         o.Namespace + "/" + o.Name,
		Time:            e.Time,
		DataContentType: "application/json",
		Data:            e,
		TraceID:         e.TraceID,
	}
}
