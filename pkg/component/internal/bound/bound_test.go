package bound

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// lines returns n problems "object i: bad" joined as errors.Join joins them.
func lines(prefix string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("object %d: bad", i+1)
	}
	return prefix + strings.Join(parts, "\n")
}

func TestMessage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		message string
		limit   int
		want    string
	}{
		{"fits unchanged", "one\ntwo", 7, "one\ntwo"},
		{"empty", "", 10, ""},
		{
			"first lines whole, then the count",
			"applying: a\nbbbbbbbbbb\ncccccccccc\ndddddddddd", 27,
			"applying: a\n… and 3 more",
		},
		{
			"as many lines as fit with the count",
			lines("", 10), 60,
			"object 1: bad\nobject 2: bad\nobject 3: bad\n… and 7 more",
		},
		{
			"a \"; \" list without lines",
			"waiting for a; b; c; d; e; f; g", 30,
			"waiting for a; … and 6 more",
		},
		{
			"a list's own count adds to the left out",
			"waiting for wave 1: aaaa; bbbb; cccc and 40 more", 42,
			"waiting for wave 1: aaaa; … and 42 more",
		},
		{
			"a trailing count line adds to the left out",
			"x\ny\nz\n… and 5 more", 16,
			"x\n… and 7 more",
		},
		{
			"one problem too long is cut and marked",
			strings.Repeat("a", 30), 10,
			"aaaaaaa…",
		},
		{
			"the first line too long is cut, then the count",
			strings.Repeat("a", 30) + "\nb\nc", 25,
			"aaaaaaa…\n… and 2 more",
		},
		{
			"never inside a rune",
			strings.Repeat("é", 10), 8, // 2 bytes each; 8-3 = 5 bytes leave 2 runes
			"éé…",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Message(tc.message, tc.limit)
			if got != tc.want {
				t.Errorf("Message(%q, %d)\n got %q\nwant %q", tc.message, tc.limit, got, tc.want)
			}
			if len(got) > tc.limit {
				t.Errorf("%d bytes, more than the limit %d", len(got), tc.limit)
			}
			if !utf8.ValidString(got) {
				t.Errorf("not valid UTF-8: %q", got)
			}
		})
	}
}

// TestMessageAtTheAPILimits bounds 2000 problems to the limits of a
// condition and of an Event: the kept lines and N add up to 2000.
func TestMessageAtTheAPILimits(t *testing.T) {
	message := lines("validating: ", 2000)
	for _, limit := range []int{ConditionLimit, EventLimit} {
		got := Message(message, limit)
		if len(got) > limit {
			t.Fatalf("limit %d: got %d bytes", limit, len(got))
		}
		kept := strings.Split(got, "\n")
		var more int
		if _, err := fmt.Sscanf(kept[len(kept)-1], "… and %d more", &more); err != nil {
			t.Fatalf("limit %d: last line %q: %v", limit, kept[len(kept)-1], err)
		}
		if len(kept)-1+more != 2000 {
			t.Errorf("limit %d: %d lines kept and %d more, want 2000 in all", limit, len(kept)-1, more)
		}
		if next := len(got) + len(fmt.Sprintf("\nobject %d: bad", len(kept))); next <= limit-len("\n… and 1999 more") {
			t.Errorf("limit %d: stopped at %d bytes although the next line fits", limit, len(got))
		}
	}
}

func TestObjects(t *testing.T) {
	long := strings.Repeat("n", 253)
	objects := []string{"ConfigMap ns/" + long + "1", "ConfigMap ns/" + long + "2", "ConfigMap ns/" + long + "3",
		"ConfigMap ns/" + long + "4", "ConfigMap ns/" + long + "5", "ConfigMap ns/" + long + "6"}
	for _, tc := range []struct {
		objects []string
		want    string
	}{
		{[]string{"ConfigMap ns/a"}, "created 1 object: ConfigMap ns/a"},
		{[]string{"a", "b", "c", "d", "e", "f", "g"}, "created 7 objects: a, b, c, d, e, … and 2 more"},
		{objects, "created 6 objects: " + objects[0] + ", " + objects[1] + ", " + objects[2] + ", … and 3 more"},
	} {
		if got := Objects("created", tc.objects); got != tc.want {
			t.Errorf("Objects(%d objects)\n got %q\nwant %q", len(tc.objects), got, tc.want)
		}
	}
}
