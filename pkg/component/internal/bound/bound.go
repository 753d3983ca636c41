package bound

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// Limits of the messages the API server stores.
const (
	// ConditionLimit bounds a condition message: the API server accepts
	// 32768 bytes in metav1.Condition.message; the margin leaves room for
	// what a CRD of another version may count differently.
	ConditionLimit = 32000
	// EventLimit bounds an Event's note, which the API server limits to
	// 1024 bytes.
	EventLimit = 1024
)

// Message returns message unchanged when it fits in limit bytes.
// Otherwise it keeps the first problems whole, one a line as errors.Join
// writes them, or one an item of a "; " list, and ends with "… and N more",
// N being the problems left out (adding those that a trailing "and N more"
// of the message already left out). A first problem too long on its own is
// cut, never inside a UTF-8 rune, and ends with "…".
func Message(message string, limit int) string {
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
	return Problems(problems, sep, omitted, limit)
}

// Problems joins the first problems with sep, as many as fit in limit
// bytes together with a closing "… and N more" for the rest and the omitted
// ones before them; the first problem is always there, cut if it must be.
func Problems(problems []string, sep string, omitted, limit int) string {
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

// Objects names the first few objects, as many as fit in an Event:
// "created 7 objects: a, b, c, d, e, … and 2 more".
func Objects(verb string, objects []string) string {
	const shown = 5
	noun := "objects"
	if len(objects) == 1 {
		noun = "object"
	}
	list := append([]string(nil), objects[:min(len(objects), shown)]...)
	list[0] = fmt.Sprintf("%s %d %s: %s", verb, len(objects), noun, list[0])
	return Problems(list, ", ", len(objects)-len(list), EventLimit)
}

// Recorder bounds the note of every Event it records, so that no caller
// can write one the API server rejects.
type Recorder struct {
	recorder.EventRecorder
}

// Eventf records an Event with its note bounded to EventLimit.
func (b Recorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	b.EventRecorder.Eventf(regarding, related, eventtype, reason, action, "%s", boundNote(note, args))
}

// AnnotatedEventf records an annotated Event with its note bounded to
// EventLimit.
func (b Recorder) AnnotatedEventf(regarding, related runtime.Object, annotations map[string]string, eventtype, reason, action, note string, args ...any) {
	b.EventRecorder.AnnotatedEventf(regarding, related, annotations, eventtype, reason, action, "%s", boundNote(note, args))
}

// boundNote formats note as the recorder would, then bounds it.
func boundNote(note string, args []any) string {
	return Message(fmt.Sprintf(note, args...), EventLimit)
}

// ByteSize writes n in KiB, or in MiB from 1 MiB on.
func ByteSize(n int) string {
	if n < 1<<20 {
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 2, 64) + " MiB"
}
