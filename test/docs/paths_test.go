package docs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("file paths in the docs", func() {
	It("exist: relative links, and code spans that name a file of the repository", func() {
		checked := 0
		var problems []string
		for _, page := range userDocs() {
			text := readPage(page)
			for _, m := range markdownLink.FindAllStringSubmatch(text, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				target, _, _ = strings.Cut(target, "#")
				checked++
				if !exists(filepath.Join(filepath.Dir(page), target)) {
					problems = append(problems, fmt.Sprintf("%s: link %s", page, m[1]))
				}
			}
			for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
				path := strings.TrimSuffix(strings.TrimSuffix(m[1], "..."), "/")
				if !repoPath.MatchString(path) {
					continue
				}
				checked++
				if !exists(path) {
					problems = append(problems, fmt.Sprintf("%s: path %s", page, m[1]))
				}
			}
		}
		Expect(problems).To(BeEmpty())
		Expect(checked).To(BeNumerically(">", 50))
	})
})

func exists(rel string) bool {
	_, err := os.Stat(filepath.Join(root, rel))
	return err == nil
}
