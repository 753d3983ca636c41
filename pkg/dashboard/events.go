package dashboard

import (
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// objectKey names an object an Event is about.
type objectKey struct {
	Kind      string
	Namespace string
	Name      string
}

// event is one Event as the page shows it.
type event struct {
	Object  objectKey
	Type    string
	Reason  string
	Message string
	Count   int32
	Last    time.Time
}

// maxEventMessage bounds an Event's message on the page.
const maxEventMessage = 1000

func newEvent(e *corev1.Event) event {
	last := e.LastTimestamp.Time
	if last.IsZero() {
		last = e.EventTime.Time
	}
	if last.IsZero() {
		last = e.CreationTimestamp.Time
	}
	count := e.Count
	if e.Series != nil && e.Series.Count > count {
		count = e.Series.Count
	}
	message := e.Message
	if len(message) > maxEventMessage {
		message = message[:maxEventMessage] + "…"
	}
	return event{Object: eventObject(e), Type: e.Type, Reason: e.Reason, Message: message, Count: count, Last: last}
}

// eventObject is the object an Event is about.
func eventObject(e *corev1.Event) objectKey {
	return objectKey{Kind: e.InvolvedObject.Kind, Namespace: e.InvolvedObject.Namespace, Name: e.InvolvedObject.Name}
}

// newestEvents sorts events newest first and keeps at most limit.
func newestEvents(events []event, limit int) []event {
	sort.Slice(events, func(i, j int) bool {
		if !events[i].Last.Equal(events[j].Last) {
			return events[i].Last.After(events[j].Last)
		}
		return strings.Compare(events[i].Reason, events[j].Reason) < 0
	})
	if len(events) > limit {
		events = events[:limit]
	}
	return events
}
