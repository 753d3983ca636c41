package notify

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind says what happened: the trigger of an alert, in Argo CD's words.
type Kind string

// What happens to a component or a set that an alert can be about.
const (
	// KindReady: a component became Ready after a change (a new
	// generation, a recovery from a failure); a component that stays Ready
	// sends nothing.
	KindReady Kind = "Ready"
	// KindFailed: a failure the operator retries by itself (the
	// component is Reconciling): the target does not answer, a source
	// cannot be fetched now, a try that failed with retries left.
	KindFailed Kind = "Failed"
	// KindStalled: a failure that only a change of the component can
	// mend (the component is Stalled): a render error, an invalid
	// manifest, a refusal, a timeout with no retry left.
	KindStalled Kind = "Stalled"
	// KindRolledBack: a failed render was replaced by the last Ready one.
	KindRolledBack Kind = "RolledBack"
	// KindDeletionBlocked: the deletion waits for foreign instances of the
	// component's CRDs.
	KindDeletionBlocked Kind = "DeletionBlocked"
	// KindDriftCorrected: objects changed out of band were written back.
	KindDriftCorrected Kind = "DriftCorrected"
	// KindDriftReported: objects changed out of band were left so (drift
	// mode Warn).
	KindDriftReported Kind = "DriftReported"
	// KindWaveHeld: a component's wave has waited for its objects longer
	// than a bound, or a ComponentSet's rollout stopped at a failed
	// cluster.
	KindWaveHeld Kind = "WaveHeld"
	// KindWaveDone: a ComponentSet's cluster wave is Ready at the template.
	KindWaveDone Kind = "WaveDone"
	// KindClusterUnreachable: a ComponentSet's cluster does not answer.
	KindClusterUnreachable Kind = "ClusterUnreachable"
	// KindTest: a test alert, sent by hand (wavekit alert test).
	KindTest Kind = "Test"
)

// Kinds lists every Kind, for validation and documentation.
var Kinds = []Kind{KindReady, KindFailed, KindStalled, KindRolledBack, KindDeletionBlocked, KindDriftCorrected,
	KindDriftReported, KindWaveHeld, KindWaveDone, KindClusterUnreachable, KindTest}

// Severity is info or error, as Flux's event severities: an alert that
// asks for error gets only the events that need someone.
type Severity string

// Severities.
const (
	SeverityInfo  Severity = "info"
	SeverityError Severity = "error"
)

// Severity is the severity of what happened: info for progress (Ready,
// drift corrected, a wave done, a test), error for what needs someone.
func (k Kind) Severity() Severity {
	switch k {
	case KindReady, KindDriftCorrected, KindWaveDone, KindTest:
		return SeverityInfo
	}
	return SeverityError
}

// Object names the object an event is about.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	UID        string `json:"uid,omitempty"`
}

// String is "Kind namespace/name".
func (o Object) String() string { return o.Kind + " " + o.Namespace + "/" + o.Name }

// Event is one thing that happened to one object, as every notifier
// receives it. It carries names, reasons and messages — the messages of
// the object's conditions, which never hold a Secret's value — and never
// an object's data.
type Event struct {
	// Kind is what happened.
	Kind Kind `json:"kind"`
	// Severity is Kind's, unless the sender says otherwise.
	Severity Severity `json:"severity"`
	// Object is what it happened to.
	Object Object `json:"object"`
	// Reason is the reason of the object's Ready condition (Error,
	// Timeout, RolledBack, …) or of its Event.
	Reason string `json:"reason"`
	// Message says what happened, in words; at most MaxMessageBytes.
	Message string `json:"message"`
	// Generation is the object's generation the event is about.
	Generation int64 `json:"generation,omitempty"`
	// Revision is the source revision being applied: a chart version, or
	// a Git commit ("main@sha1:<hex>").
	Revision string `json:"revision,omitempty"`
	// TraceID is the OpenTelemetry trace ID of the reconcile that saw it,
	// when it was traced: the same ID as in status.lastTraceID and the logs.
	TraceID string `json:"traceID,omitempty"`
	// Time is when it was seen.
	Time time.Time `json:"time"`
	// Operator is the operator that saw it (its name, the annotation
	// prefix).
	Operator string `json:"operator,omitempty"`
	// Metadata adds details by name (the objects a wave waits for, the
	// clusters that do not answer).
	Metadata map[string]string `json:"metadata,omitempty"`
	// Labels are the object's labels, for routing (an alert's
	// matchLabels); they are not sent.
	Labels map[string]string `json:"-"`
}

// MaxMessageBytes bounds an event's message: a chat message stays
// readable, and a receiver's body limit is not reached.
const MaxMessageBytes = 2048

// Key identifies what an event says: the object, what happened, the
// reason and message, at the generation and revision. Two events of one
// key are duplicates, as Flux's rate limit keys events (involved object,
// message, revision); a new generation or revision is news.
func (e Event) Key() string {
	h := sha256.New()
	for _, part := range []string{e.Object.APIVersion, e.Object.Kind, e.Object.Namespace, e.Object.Name,
		string(e.Kind), e.Reason, e.Message, e.Revision, strconv.FormatInt(e.Generation, 10)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Title is a one-line summary of the event: "Component shop/web: Failed (Error)".
func (e Event) Title() string {
	title := e.Object.String() + ": " + string(e.Kind)
	if e.Reason != "" && e.Reason != string(e.Kind) {
		title += " (" + e.Reason + ")"
	}
	return title
}

// normalized is e with its severity, time and message bounds filled in.
func (e Event) normalized(now time.Time) Event {
	if e.Severity == "" {
		e.Severity = e.Kind.Severity()
	}
	if e.Time.IsZero() {
		e.Time = now
	}
	e.Message = Bound(e.Message, MaxMessageBytes)
	return e
}

// Bound cuts s to at most limit bytes, at a rune boundary, ending in "…"
// when it was cut.
func Bound(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const ellipsis = "…"
	cut := limit - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:max(cut, 0)], " ") + ellipsis
}
