package docs_test

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A page longer than a screen or three starts with its table of contents,
// and links within the docs land on a heading.
var _ = Describe("tables of contents", func() {
	It("open every page over 150 lines, naming each of its sections in order", func() {
		var problems []string
		for _, page := range userDocs() {
			text := readPage(page)
			lines := strings.Split(text, "\n")
			// The pages of docs/, and the changelog.
			if len(lines) <= 150 || !strings.HasPrefix(page, "docs/") && page != "CHANGELOG.md" {
				continue
			}
			contents := contentsOf(lines)
			if contents == "" {
				problems = append(problems, page+": no \"Contents:\" paragraph in its first 40 lines")
				continue
			}
			// Every section, in order; subsections may be listed too.
			want := sectionAnchors(text, "## ")
			sections := map[string]bool{}
			for _, a := range want {
				sections[a] = true
			}
			var linked []string
			for _, m := range markdownLink.FindAllStringSubmatch(contents, -1) {
				if a := strings.TrimPrefix(m[1], "#"); sections[a] {
					linked = append(linked, a)
				}
			}
			if strings.Join(linked, " ") != strings.Join(want, " ") {
				problems = append(problems, fmt.Sprintf("%s: the contents link the sections %v, the page has %v", page, linked, want))
			}
		}
		Expect(problems).To(BeEmpty())
	})

	It("keep each page to one topic a reader can take in: at most 400 lines, benchmarks.md at most 300", func() {
		var problems []string
		for _, page := range userDocs() {
			limit := 400
			switch {
			case page == "docs/benchmarks.md":
				limit = 300
			case !strings.HasPrefix(page, "docs/"):
				continue // the README, the examples' index and the changelog
			}
			if n := strings.Count(readPage(page), "\n"); n > limit {
				problems = append(problems, fmt.Sprintf("%s: %d lines, over %d: split it by topic", page, n, limit))
			}
		}
		Expect(problems).To(BeEmpty())
	})

	It("and every link to a section of a page names a heading of that page", func() {
		var problems []string
		anchors := map[string]map[string]bool{}
		for _, page := range userDocs() {
			anchors[page] = map[string]bool{}
			for _, a := range sectionAnchors(readPage(page), "#") {
				anchors[page][a] = true
			}
		}
		for _, page := range userDocs() {
			for _, m := range markdownLink.FindAllStringSubmatch(readPage(page), -1) {
				target, anchor, ok := strings.Cut(m[1], "#")
				if !ok || strings.Contains(target, "://") || !strings.HasSuffix(target, ".md") && target != "" {
					continue
				}
				linked := page
				if target != "" {
					linked = strings.TrimPrefix(cleanJoin(page, target), "./")
				}
				if known, read := anchors[linked]; read && !known[anchor] {
					problems = append(problems, fmt.Sprintf("%s: %s names no heading of %s", page, m[1], linked))
				}
			}
		}
		Expect(problems).To(BeEmpty())
	})
})

// contentsOf is the paragraph that starts with "Contents:" in the first 40
// lines, or "".
func contentsOf(lines []string) string {
	for i, line := range lines[:min(40, len(lines))] {
		if !strings.HasPrefix(line, "Contents:") {
			continue
		}
		end := i
		for end < len(lines) && strings.TrimSpace(lines[end]) != "" {
			end++
		}
		return strings.Join(lines[i:end], "\n")
	}
	return ""
}

var fence = regexp.MustCompile("^```")

// sectionAnchors are the anchors of the headings that start with prefix
// ("## ", or "#" for all), outside code blocks, as GitHub makes them.
func sectionAnchors(text, prefix string) []string {
	var out []string
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inBlock = !inBlock
		}
		if inBlock || !strings.HasPrefix(line, prefix) || !strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, anchorOf(strings.TrimLeft(line, "# ")))
	}
	return out
}

// anchorOf is GitHub's anchor of a heading: lower case, punctuation
// dropped but for hyphens and underscores, spaces as hyphens.
func anchorOf(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cleanJoin is target relative to the directory of page.
func cleanJoin(page, target string) string {
	dir := page[:strings.LastIndex(page, "/")+1]
	for strings.HasPrefix(target, "../") {
		target = strings.TrimPrefix(target, "../")
		dir = dir[:strings.LastIndex(strings.TrimSuffix(dir, "/"), "/")+1]
	}
	return dir + target
}
