package errlines_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wavekit-dev/wavekit/internal/errlines"
)

func TestWrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"one line", errors.New("source x: no such directory"), "error: source x: no such directory\n"},
		{"a join of three", fmt.Errorf("scaffold: %w", errors.Join(errors.New("a"), errors.New("b"), errors.New("c"))),
			"error: scaffold: a\n  b\n  c\n"},
		{"blank lines and padding dropped", errors.New("first\n\n\tsecond  \n\n"), "error: first\n  second\n"},
		{"no text", errors.New(""), "error: \n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			errlines.Write(&b, "error: ", tc.err)
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}
