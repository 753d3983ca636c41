// Package docs_test keeps the user's documentation true: every wavekit command
// line that README.md, CHANGELOG.md, examples/README.md and docs/*.md show in
// a shell block parses (the command and its flags exist, the number of
// arguments fits), and so does every example of a command's help; every
// `wavekit ...` code span of those pages and of the Go comments (package docs
// included) names commands and flags that exist; every file path they name
// exists, and every example in examples/ is accepted by a real API server with
// the operator's CRDs, or renders.
package docs_test

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

var root = testcluster.ModuleRoot()

func TestDocs(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "docs")
}

// userDocs are the pages a user reads, relative to the module root.
func userDocs() []string {
	GinkgoHelper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	Expect(err).NotTo(HaveOccurred())
	pages = append(pages, filepath.Join(root, "README.md"), filepath.Join(root, "CHANGELOG.md"), filepath.Join(root, "examples", "README.md"))
	for i, page := range pages {
		rel, err := filepath.Rel(root, page)
		Expect(err).NotTo(HaveOccurred())
		pages[i] = rel
	}
	return pages
}

func readPage(page string) string {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(root, page))
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}
