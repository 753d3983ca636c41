package component

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// Limits of the messages the API server stores (DESIGN invariant 11).
const (
	// conditionMessageLimit bounds a condition message: the API server
	// accepts 32768 bytes in metav1.Condition.message; the margin leaves
	// room for what a CRD of another version may count differently.
	conditionMessageLimit = 32000
	// eventNoteLimit bounds an Event's note, which the API server limits
	// to 1024 bytes.
	eventNoteLimit = 1024
)

// boundMessage returns message unchanged when it fits in limit bytes.
// Otherwise it keeps the first problems whole, one a line as errors.Join
// writes them, or one an item of a "; " list, and ends with "… and N more",
// N being the problems left out (adding those that a trailing "and N more"
// of the message already left out). A first problem too long on its own is
// cut, never inside a UTF-8 rune, and ends with "…".
func boundMessage(message string, limit int) string {
	if len(message) <= limit {
		return message
	}
	sep := "; "
	if strings.Contains(message, "\n") {
		sep = "\n"
	}
	problems := strings.Split(message, sep)
	omitted := 0
	if last := len(problems) - 1; last > 0 {
		if rest, n, ok := cutMore(problems[last]); ok {
			omitted = n
			problems[last] = rest
			if rest == "" {
				problems = problems[:last]
			}
		}
	}
	return fitProblems(problems, sep, omitted, limit)
}

// fitProblems joins the first problems with sep, as many as fit in limit
// bytes together with a closing "… and N more" for the rest and the omitted
// ones before them; the first problem is always there, cut if it must be.
func fitProblems(problems []string, sep string, omitted, limit int) string {
	total := len(problems) + omitted
	var b strings.Builder
	kept := 0
	for _, p := range problems {
		added := len(p)
		if kept > 0 {
			added += len(sep)
		}
		if b.Len()+added+len(moreSuffix(sep, total-kept-1)) > limit {
			break
		}
		if kept > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p)
		kept++
	}
	if kept == 0 {
		suffix := moreSuffix(sep, total-1)
		b.WriteString(cutRunes(problems[0], limit-len(suffix)-len("…")))
		b.WriteString("…")
		kept = 1
	}
	b.WriteString(moreSuffix(sep, total-kept))
	return b.String()
}

// moreSuffix says how many problems were left out ("" for none).
func moreSuffix(sep string, n int) string {
	if n <= 0 {
		return ""
	}
	return sep + "… and " + strconv.Itoa(n) + " more"
}

// trailingMore matches a list's own "and N more" (engine.Summarize's
// " and 3 more", or this file's "… and 3 more").
var trailingMore = regexp.MustCompile(`^(.*?)(?:…| …)? ?and ([0-9]+) more$`)

// cutMore splits "x and N more" into "x" and N.
func cutMore(s string) (string, int, bool) {
	m := trailingMore.FindStringSubmatch(s)
	if m == nil {
		return s, 0, false
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return s, 0, false
	}
	return m[1], n, true
}

// cutRunes returns the longest prefix of s within n bytes that ends at a
// rune boundary.
func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// boundedRecorder bounds the note of every Event it records, so that no
// caller can write one the API server rejects.
type boundedRecorder struct {
	recorder.EventRecorder
}

// Eventf records an Event with its note bounded to eventNoteLimit.
func (b boundedRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	b.EventRecorder.Eventf(regarding, related, eventtype, reason, action, "%s", boundNote(note, args))
}

// AnnotatedEventf records an annotated Event with its note bounded to
// eventNoteLimit.
func (b boundedRecorder) AnnotatedEventf(regarding, related runtime.Object, annotations map[string]string, eventtype, reason, action, note string, args ...any) {
	b.EventRecorder.AnnotatedEventf(regarding, related, annotations, eventtype, reason, action, "%s", boundNote(note, args))
}

// boundNote formats note as the recorder would, then bounds it.
func boundNote(note string, args []any) string {
	return boundMessage(fmt.Sprintf(note, args...), eventNoteLimit)
}

// byteSize writes n in KiB, or in MiB from 1 MiB on.
func byteSize(n int) string {
	if n < 1<<20 {
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 2, 64) + " MiB"
}
