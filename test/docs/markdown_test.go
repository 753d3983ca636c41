package docs_test

import (
	"regexp"
	"strings"
)

// shellBlockLanguages are the fenced code blocks whose lines a user runs.
var shellBlockLanguages = map[string]bool{"sh": true, "shell": true, "bash": true, "console": true}

// shellLines returns the command lines of a page that a user may run: every
// line of a shell block, and the lines of other blocks that start with a "$ "
// prompt (a session with its output), unless the output shown is an error
// (an example of a mistake). Continuation lines are joined, prompts and
// comments removed; the key is the line number where each command starts.
func shellLines(page string) map[int]string {
	lines := map[int]string{}
	inBlock, inShell, continued := false, false, false
	start, current := 0, ""
	all := strings.Split(page, "\n")
	for i, line := range all {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			inBlock = !inBlock
			inShell = inBlock && shellBlockLanguages[strings.TrimPrefix(trimmed, "```")]
			continue
		}
		if !inBlock {
			continue
		}
		if !continued {
			prompted := strings.HasPrefix(trimmed, "$ ")
			if !inShell && !prompted {
				continue
			}
			start, current = i+1, ""
			trimmed = strings.TrimPrefix(trimmed, "$ ")
		}
		continued = strings.HasSuffix(trimmed, "\\")
		current += strings.TrimSuffix(trimmed, "\\")
		if continued {
			current += " "
			continue
		}
		showsError := !inShell && i+1 < len(all) && strings.HasPrefix(all[i+1], "error: ")
		if command := stripComment(current); command != "" && !showsError {
			lines[start] = command
		}
	}
	return lines
}

// stripComment removes a shell comment that is not inside quotes.
func stripComment(line string) string {
	quote := rune(0)
	for i, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '\'' || r == '"'):
			quote = r
		case quote == 0 && r == '#' && (i == 0 || line[i-1] == ' '):
			return strings.TrimSpace(line[:i])
		}
	}
	return strings.TrimSpace(line)
}

// markdownLink finds [text](target) links.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// codeSpan finds `code` spans.
var codeSpan = regexp.MustCompile("`([^`\n]+)`")

// repoPath is a code span that names a file or folder of this repository.
var repoPath = regexp.MustCompile(`^(api|cmd|config|docs|examples|hack|internal|pkg|test)/[A-Za-z0-9_.\-/]*$`)
