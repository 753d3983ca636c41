package errlines

import (
	"fmt"
	"io"
	"strings"
)

// Indent starts every line after the first.
const Indent = "  "

// Lines returns the lines of err's message without surrounding white space,
// empty ones left out.
func Lines(err error) []string {
	var lines []string
	for _, line := range strings.Split(err.Error(), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// Write prints err to w: prefix and its first line, then each further line
// indented. An error without text prints prefix alone.
func Write(w io.Writer, prefix string, err error) {
	lines := Lines(err)
	if len(lines) == 0 {
		lines = []string{""}
	}
	var b strings.Builder
	b.WriteString(prefix + lines[0] + "\n")
	for _, line := range lines[1:] {
		b.WriteString(Indent + line + "\n")
	}
	fmt.Fprint(w, b.String())
}
